//! [`assert_introduces`]: a binary's own command line introduces its extension as
//! [`Extension::serve`](crate::server::Extension::serve) would.

use crate::protocol::ExtensionIdentity;
use crate::server::ServeArgs;

/// Panics unless `command`'s `--help` opens with the two lines
/// [`ServeArgs::command`] writes for `identity` (name, version, id; description), its
/// `--version` is the manifest's, and the help has each of `headings`, `Listening:` and
/// `Examples:`. For a binary with options of its own beside the serving ones, whose
/// introduction is written out in its clap attributes: this keeps it in step with the
/// manifest.
///
/// ```
/// use aep_sdk::protocol::ExtensionIdentity;
/// use aep_sdk::server::ServeArgs;
///
/// let identity = ExtensionIdentity {
///     id: "acme.words".into(),
///     name: "Words".into(),
///     version: "1.2.0".into(),
///     description: Some("Counts words.".into()),
/// };
/// aep_sdk::testing::assert_introduces(ServeArgs::command(&identity), &identity, &["Access:"]);
/// ```
#[track_caller]
pub fn assert_introduces(command: clap::Command, identity: &ExtensionIdentity, headings: &[&str]) {
    let intro = ServeArgs::command(identity).render_help().to_string();
    let intro: Vec<&str> = intro.lines().take(2).collect();
    let version = command.get_version().map(str::to_owned);
    let help = command.clone().render_long_help().to_string();
    let lines: Vec<&str> = help.lines().take(2).collect();
    assert_eq!(lines, intro, "the help does not introduce the extension: {help}");
    assert_eq!(version.as_deref(), Some(identity.version.as_str()), "--version");
    for heading in headings.iter().copied().chain(["Listening:", "Examples:"]) {
        assert!(help.contains(heading), "no {heading} in {help}");
    }
}
