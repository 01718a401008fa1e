//! `mcp_server_operation_duration_seconds`: what the MCP handler of [`crate::tool`]
//! reports, labelled with the MCP method and, for `tools/call`, the tool (one of the
//! tools the manifest declares for this server, else `other`).

use std::sync::Arc;

use super::bounded::{Label, OTHER};
use super::{McpLabels, Metrics};
use crate::tool::McpTiming;

/// The recorder one MCP mount passes to its handler, given the tool names the manifest
/// declares for it.
pub(crate) fn timing(metrics: Arc<Metrics>, tools: &[String]) -> McpTiming {
    let tools: Arc<[Label]> = tools.iter().map(|t| Label::new(t)).collect();
    let other = Label::new(OTHER);
    McpTiming::new(move |method, tool, duration| {
        let tool = tool.map(|name| {
            tools
                .iter()
                .find(|t| t.as_str() == name)
                .unwrap_or(&other)
                .clone()
        });
        let labels = McpLabels {
            mcp_method_name: method,
            gen_ai_tool_name: tool,
        };
        metrics.mcp.get_or_create(&labels).observe(duration.as_secs_f64());
        #[cfg(feature = "otel")]
        if let Some(otel) = &metrics.otel {
            otel.mcp(&labels, duration.as_secs_f64());
        }
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn undeclared_tools_share_one_label() {
        let metrics = Arc::new(Metrics::new(|| 0));
        let record = timing(metrics.clone(), &["hash".to_owned()]);
        record.record("tools/call", Some("hash"), Duration::from_millis(3));
        record.record("tools/call", Some("made_up_1"), Duration::from_millis(3));
        record.record("tools/call", Some("made_up_2"), Duration::from_millis(3));
        let text = metrics.encode();
        let count = "mcp_server_operation_duration_seconds_count";
        assert!(
            text.contains(&format!(
                "\n{count}{{mcp_method_name=\"tools/call\",gen_ai_tool_name=\"hash\"}} 1\n"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "\n{count}{{mcp_method_name=\"tools/call\",gen_ai_tool_name=\"other\"}} 2\n"
            )),
            "{text}"
        );
    }
}
