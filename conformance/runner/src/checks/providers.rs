//! Section 3: the provider list, each provider's health and models, and `/chat`.

use aep_sdk::protocol::Health;

use super::{Findings, Verdict, need};
use crate::ctx::Ctx;
use crate::http::Http;

/// `3.providers.list`.
pub(crate) async fn list(ctx: &mut Ctx) -> Verdict {
    let declared = need!(ctx.providers().await);
    let listed = match ctx.provider_list().await {
        Ok(listed) => listed,
        Err(error) => return Verdict::fail(format!("GET /aep/model-providers: {error}")),
    };
    let mut want: Vec<String> = declared.iter().map(|p| p.id.to_lowercase()).collect();
    let mut got: Vec<String> = listed.iter().map(|p| p.id.to_lowercase()).collect();
    want.sort();
    want.dedup();
    got.sort();
    got.dedup();
    if want != got {
        return Verdict::fail(format!(
            "GET /aep/model-providers lists [{}], the manifest declares [{}]",
            got.join(", "),
            want.join(", ")
        ));
    }
    Verdict::Pass(vec![format!("{} provider(s): {}", got.len(), got.join(", "))])
}

/// Swaps the case of every letter (`Echo` -> `eCHO`), or appends nothing when the id
/// has no letter.
fn swap_case(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_lowercase() {
                c.to_uppercase().collect::<String>()
            } else {
                c.to_lowercase().collect()
            }
        })
        .collect()
}

/// `3.providers.case-insensitive`.
pub(crate) async fn case_insensitive(ctx: &mut Ctx) -> Verdict {
    let providers = need!(ctx.providers().await);
    let mut findings = Findings::default();
    for provider in providers {
        let swapped = swap_case(&provider.id);
        if swapped == provider.id {
            findings.skip(format!("provider id '{}' has no letters", provider.id));
            continue;
        }
        let path = Http::provider_path(&swapped, "/health");
        findings.check(match ctx.http.get(&path).await {
            Err(error) => Err(error),
            Ok(answer) if answer.status.is_success() => Ok(format!("GET {path} answered")),
            Ok(answer) => Err(format!(
                "GET {path} (id '{}' in another case): {}",
                provider.id,
                answer.describe()
            )),
        });
    }
    findings.verdict()
}

/// `3.provider.health`.
pub(crate) async fn health(ctx: &mut Ctx) -> Verdict {
    let providers = need!(ctx.providers().await);
    let mut findings = Findings::default();
    for provider in providers {
        let path = Http::provider_path(&provider.id, "/health");
        let result = match ctx.http.get(&path).await {
            Err(error) => Err(error),
            Ok(answer) => answer.ok_json().and_then(|value| {
                serde_json::from_value::<Health>(value)
                    .map_err(|e| format!("not a health document ({e}): {}", answer.describe()))
            }),
        };
        findings.check(
            result
                .map(|h| {
                    format!(
                        "'{}': {}{}",
                        provider.id,
                        h.status,
                        h.details.map(|d| format!(" ({d})")).unwrap_or_default()
                    )
                })
                .map_err(|e| format!("GET {path}: {e}")),
        );
    }
    findings.verdict()
}

/// `3.provider.models`.
pub(crate) async fn models(ctx: &mut Ctx) -> Verdict {
    let providers = need!(ctx.providers().await);
    let mut findings = Findings::default();
    for provider in providers {
        let result = ctx.models(&provider.id).await;
        findings.check(
            result
                .map(|models| {
                    let ids: Vec<&str> = models.iter().take(5).map(|m| m.id.as_str()).collect();
                    format!("'{}': {} model(s) {}", provider.id, models.len(), ids.join(", "))
                })
                .map_err(|e| format!("GET {}: {e}", Http::provider_path(&provider.id, "/models"))),
        );
    }
    findings.verdict()
}

/// `3.provider.chat`.
pub(crate) async fn chat(ctx: &mut Ctx) -> Verdict {
    let (targets, left_out) = match ctx.targets().await {
        Ok(found) => found,
        Err(missing) => return Verdict::owner(missing),
    };
    let mut findings = Findings::default();
    left_out.into_iter().for_each(|l| findings.skip(l));
    for target in targets {
        if !target.descriptor.capabilities.chat {
            findings.skip(format!("provider '{}' declares chat: false", target.id()));
            continue;
        }
        let capture = ctx.chat(&target).await;
        let label = format!(
            "POST {} (model '{}')",
            Http::provider_path(target.id(), "/chat"),
            target.model
        );
        findings.check(match capture.as_ref() {
            Err(error) => Err(format!("{label}: {error}")),
            Ok(capture) => match &capture.response {
                Err(error) => Err(format!("{label}: {error}")),
                Ok(response) if response.messages.is_empty() => {
                    Err(format!("{label}: the answer holds no message"))
                }
                Ok(response) => Ok(format!(
                    "'{}': {:?}",
                    target.id(),
                    crate::render::clip(&response.all_text(), 60)
                )),
            },
        });
    }
    findings.verdict()
}
