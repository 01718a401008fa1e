//! Hostile native options and configuration requests (issue 10, item 2): option values
//! that fail the option set's schema, wrong digests and versions, and malformed
//! migration requests, sent over raw TCP to [`Tooly`](common::hostile::Tooly) and its
//! option set. The rules every case follows (a 4xx AEP error, never a 5xx or a hang,
//! still serving afterwards) and the table runner are in `common/hostile.rs`.
//!
//! Documented exceptions, each a row of the table with its reason:
//! - **Served**: valid native options are answered 200.

use crate::common;

use common::hostile::*;
use serde_json::Value;

/// Cases for the option set and configuration routes of [`Tooly`].
fn option_cases(digest: &str) -> Vec<Case> {
    let chat = "/aep/model-providers/echo/chat";
    let native = |values: &str| {
        with_options(&format!(
            r#""nativeOptions":{{"optionSet":"{PROFILE}","version":"1.0.0","schemaDigest":"{digest}","values":{values}}}"#
        ))
    };
    let migrate = "/aep/configuration/migrate";
    vec![
        served(
            "nativeOptions: valid values",
            post_json(chat, &native(r#"{"think":true}"#)),
        ),
        case(
            "nativeOptions.values: string",
            post_json(chat, &native(r#""think""#)),
            Expect::Aep(422, "invalid_options", None),
        ),
        case(
            "nativeOptions.values.think: string",
            post_json(chat, &native(r#"{"think":"yes"}"#)),
            Expect::Aep(422, "invalid_options", None),
        ),
        case(
            "nativeOptions.values.depth: 1e308",
            post_json(chat, &native(r#"{"depth":1e308}"#)),
            Expect::Aep(422, "invalid_options", None),
        ),
        case(
            "nativeOptions.values: unknown member",
            post_json(chat, &native(r#"{"other":1}"#)),
            Expect::Aep(422, "invalid_options", None),
        ),
        case(
            "nativeOptions: wrong digest",
            post_json(
                chat,
                &with_options(&format!(
                    r#""nativeOptions":{{"optionSet":"{PROFILE}","version":"1.0.0","schemaDigest":"sha256:{}","values":{{}}}}"#,
                    "0".repeat(64)
                )),
            ),
            Expect::Aep(422, "option_schema_mismatch", None),
        ),
        case(
            "nativeOptions: unknown version",
            post_json(
                chat,
                &with_options(&format!(
                    r#""nativeOptions":{{"optionSet":"{PROFILE}","version":"9.9.9","schemaDigest":"{digest}","values":{{}}}}"#
                )),
            ),
            Expect::Aep(422, "option_version_unsupported", None),
        ),
        aep(
            "migrate: truncated JSON",
            post_json(migrate, br#"{"optionSet":"#),
            400,
            "invalid_request",
        ),
        aep(
            "migrate: array body",
            post_json(migrate, b"[]"),
            400,
            "invalid_request",
        ),
        aep(
            "migrate: values missing",
            post_json(migrate, br#"{"optionSet":"a"}"#),
            400,
            "invalid_request",
        ),
        aep(
            "migrate: fromVersion number",
            post_json(
                migrate,
                br#"{"optionSet":"a","fromVersion":1,"fromSchemaDigest":"x","toVersion":"2","values":{}}"#,
            ),
            400,
            "invalid_request",
        ),
        aep(
            "migrate: text/plain",
            request("POST", migrate, &["Content-Type: text/plain"], b"{}"),
            415,
            "invalid_request",
        ),
        aep(
            "GET on migrate",
            request("GET", migrate, &[], b""),
            405,
            "method_not_allowed",
        ),
        aep(
            "PUT on configuration",
            request("PUT", "/aep/configuration", &[JSON], b"{}"),
            405,
            "method_not_allowed",
        ),
        aep(
            "DELETE on configuration",
            request("DELETE", "/aep/configuration", &[], b""),
            405,
            "method_not_allowed",
        ),
    ]
}

#[tokio::test]
async fn option_set_survives_hostile_requests() {
    let server = tooly_server();
    let catalog: Value = reqwest::get(format!("{}/aep/configuration", server.base_url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let digest = catalog["optionSets"][0]["versions"][0]["schemaDigest"]
        .as_str()
        .expect("the option set's digest")
        .to_owned();
    survives(&server, "options", option_cases(&digest)).await;
}
