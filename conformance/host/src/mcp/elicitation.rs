//! How the pool's clients answer a server's `elicitation/create` (a request a tool makes
//! to the user, through the client, in the middle of a call).
//!
//! Without a policy the client does not declare the `elicitation` capability, so a
//! well-behaved server never asks, and rmcp declines any request that comes anyway.
//! With one, the client declares form elicitation (`"elicitation": {"form": {}}`) and
//! answers by the policy.

use rmcp::model::{
    ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    ElicitationSchema, FormElicitationCapability,
};
use serde_json::Value;

use crate::JsonObject;

/// How the pool's clients answer `elicitation/create`; set in
/// [`PoolOptions::elicitation`](super::PoolOptions::elicitation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElicitationPolicy {
    /// No user to ask: accept a form request with every property that has a schema
    /// `default` (SEP-1034) set to it, and leave the others out. A request with a
    /// required property that has no default cannot be answered truthfully and is
    /// declined, and so is a URL-mode request (there is no browser to open).
    AcceptDefaults,
}

impl ElicitationPolicy {
    /// The capabilities a client with this policy declares.
    pub(crate) fn declare(self, capabilities: &mut ClientCapabilities) {
        match self {
            ElicitationPolicy::AcceptDefaults => {
                capabilities.elicitation =
                    Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
            }
        }
    }

    /// The answer to one `elicitation/create`.
    pub fn answer(self, request: &ElicitRequestParams) -> ElicitResult {
        match (self, request) {
            (
                ElicitationPolicy::AcceptDefaults,
                ElicitRequestParams::FormElicitationParams { requested_schema, .. },
            ) => match schema_defaults(requested_schema) {
                Ok(content) => {
                    ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
                }
                Err(missing) => {
                    tracing::info!(
                        ?missing,
                        "declining an elicitation: required fields without a default"
                    );
                    ElicitResult::new(ElicitationAction::Decline)
                }
            },
            (ElicitationPolicy::AcceptDefaults, _) => {
                tracing::info!("declining a URL-mode elicitation: no browser to open");
                ElicitResult::new(ElicitationAction::Decline)
            }
        }
    }
}

/// The content made of each property's schema `default` (SEP-1034), in property order;
/// `Err` with the required properties that have none.
pub fn schema_defaults(schema: &ElicitationSchema) -> Result<JsonObject, Vec<String>> {
    // Read from the wire form: every primitive kind (string, number, integer, boolean,
    // single- and multi-select enums) spells its default as `default`.
    let wire = serde_json::to_value(schema).unwrap_or(Value::Null);
    let properties = wire
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut content = JsonObject::new();
    for (name, property) in &properties {
        if let Some(default) = property.get("default").filter(|d| !d.is_null()) {
            content.insert(name.clone(), default.clone());
        }
    }
    let missing: Vec<String> = schema
        .required
        .iter()
        .flatten()
        .filter(|name| !content.contains_key(name.as_str()))
        .cloned()
        .collect();
    if missing.is_empty() {
        Ok(content)
    } else {
        Err(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(schema: Value) -> ElicitRequestParams {
        serde_json::from_value(json!({
            "mode": "form",
            "message": "please",
            "requestedSchema": schema,
        }))
        .expect("a form elicitation")
    }

    #[test]
    fn every_kind_of_default_is_applied_and_properties_without_one_are_left_out() {
        let request = form(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                "verified": {"type": "boolean", "default": true},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["b"]},
                "nickname": {"type": "string"},
            },
        }));
        let answer = ElicitationPolicy::AcceptDefaults.answer(&request);
        assert_eq!(answer.action, ElicitationAction::Accept);
        assert_eq!(
            answer.content,
            Some(json!({
                "name": "John Doe",
                "age": 30,
                "score": 95.5,
                "status": "active",
                "verified": true,
                "tags": ["b"],
            }))
        );
    }

    #[test]
    fn a_required_property_without_a_default_declines() {
        let request = form(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "email": {"type": "string", "format": "email"},
            },
            "required": ["name", "email"],
        }));
        let answer = ElicitationPolicy::AcceptDefaults.answer(&request);
        assert_eq!(answer.action, ElicitationAction::Decline);
        assert_eq!(answer.content, None);
        let ElicitRequestParams::FormElicitationParams { requested_schema, .. } = &request else {
            unreachable!()
        };
        assert_eq!(schema_defaults(requested_schema), Err(vec!["email".to_owned()]));
    }

    #[test]
    fn a_required_property_with_a_default_is_answered() {
        let request = form(json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean", "default": false}},
            "required": ["confirm"],
        }));
        let answer = ElicitationPolicy::AcceptDefaults.answer(&request);
        assert_eq!(answer.action, ElicitationAction::Accept);
        assert_eq!(answer.content, Some(json!({"confirm": false})));
    }

    #[test]
    fn a_url_request_is_declined() {
        let request: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "url",
            "message": "sign in",
            "url": "https://example.com/login",
            "elicitationId": "e1",
        }))
        .unwrap();
        let answer = ElicitationPolicy::AcceptDefaults.answer(&request);
        assert_eq!(answer.action, ElicitationAction::Decline);
    }

    #[test]
    fn the_policy_declares_form_elicitation() {
        let mut capabilities = ClientCapabilities::default();
        ElicitationPolicy::AcceptDefaults.declare(&mut capabilities);
        assert_eq!(
            serde_json::to_value(&capabilities).unwrap(),
            json!({"elicitation": {"form": {}}})
        );
    }
}
