//! The request check of `/chat` and `/chat/stream`: `options.nativeOptions` is checked
//! against the published option sets before the provider runs, and the validated values
//! are attached to the provider's request context (its extensions).

use std::sync::Arc;

use super::{Configuration, ValidationIssue};
use crate::AepError;
use crate::error::{codes, option_set_unsupported};
use crate::protocol::{ChatRequest, ModelProviderDescriptor, VersionedOptions};

/// The validated envelope as the request context holds it.
#[derive(Clone)]
pub(crate) struct ValidatedOptions(pub(crate) Arc<VersionedOptions>);

/// A 422 `code` whose message lists every issue and whose target is the first issue's path.
pub(super) fn issues_error(code: &str, prefix: &str, issues: &[ValidationIssue]) -> AepError {
    let listed = issues
        .iter()
        .map(|i| i.message.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let error = AepError::unprocessable(code, format!("{prefix}{listed}"));
    match issues.first() {
        Some(first) => error.with_target(first.path.clone()),
        None => error,
    }
}

impl Configuration {
    /// Checks the request's native options for the provider `descriptor`; on success the
    /// context holds the envelope and, for typed versions, the typed values.
    pub(crate) fn check_request(
        &self,
        request: &ChatRequest,
        descriptor: &ModelProviderDescriptor,
        extensions: &mut http::Extensions,
    ) -> Result<(), AepError> {
        let Some(native) = request.options.as_ref().and_then(|o| o.native_options.as_ref()) else {
            return Ok(());
        };
        let set = self
            .sets
            .iter()
            .find(|s| s.id == native.option_set && s.contribution_id.eq_ignore_ascii_case(&descriptor.id))
            .ok_or_else(|| option_set_unsupported(&native.option_set, &descriptor.id))?;
        let version = set.version(&native.version).ok_or_else(|| {
            let known = set
                .versions
                .iter()
                .map(|v| format!("'{}'", v.version))
                .collect::<Vec<_>>()
                .join(", ");
            AepError::unprocessable(
                codes::OPTION_VERSION_UNSUPPORTED,
                format!(
                    "Option set '{}' version '{}' is not supported (supported: {known}).",
                    set.id, native.version
                ),
            )
            .with_target("options.nativeOptions.version")
        })?;
        if version.digest != native.schema_digest {
            return Err(AepError::unprocessable(
                codes::OPTION_SCHEMA_MISMATCH,
                format!(
                    "Option set '{}' version '{}' has schema digest '{}', not '{}'.",
                    set.id, version.version, version.digest, native.schema_digest
                ),
            )
            .with_target("options.nativeOptions.schemaDigest"));
        }
        let typed = version
            .check(&native.values)
            .map_err(|issues| issues_error(codes::INVALID_OPTIONS, "", &issues))?;
        extensions.insert(ValidatedOptions(Arc::new(native.clone())));
        if let Some(attach) = typed {
            attach(extensions);
        }
        Ok(())
    }
}
