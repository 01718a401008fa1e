//! Values the OpenTelemetry semantic conventions bound, shared by the spans and the
//! Prometheus instruments so both name a request the same way.

use http::Method;

/// `http.request.method` as the conventions bound it: the standard methods, else `_OTHER`.
pub(crate) fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "_OTHER",
    }
}

/// `http.route`: the template of a matched route, never the raw path. A provider's chat
/// routes are also registered by their literal path (`/aep/model-providers/echo/chat`,
/// cheaper to route); they are named by the template like every other route.
pub(crate) fn route_template(matched: &str) -> String {
    let base = crate::protocol::paths::MODEL_PROVIDERS;
    if let Some((id, rest)) = matched
        .strip_prefix(base)
        .and_then(|p| p.strip_prefix('/'))
        .and_then(|p| p.split_once('/'))
        && id != "{id}"
        && matches!(rest, "chat" | "chat/stream")
    {
        return format!("{base}/{{id}}/{rest}");
    }
    matched.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_outside_the_standard_ones_share_one_label() {
        assert_eq!(method_label(&Method::POST), "POST");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "_OTHER");
    }

    #[test]
    fn literal_chat_routes_are_named_by_their_template() {
        let template = route_template;
        assert_eq!(
            template("/aep/model-providers/echo/chat"),
            "/aep/model-providers/{id}/chat"
        );
        assert_eq!(
            template("/aep/model-providers/echo/chat/stream"),
            "/aep/model-providers/{id}/chat/stream"
        );
        assert_eq!(
            template("/aep/model-providers/{id}/chat"),
            "/aep/model-providers/{id}/chat"
        );
        assert_eq!(
            template("/aep/model-providers/{id}/health"),
            "/aep/model-providers/{id}/health"
        );
        assert_eq!(template("/mcp"), "/mcp");
    }
}
