//! [`AepExtension`]: what `#[aep_extension]` implements for your type.

use std::future::Future;

use super::{Extension, ExtensionBuilder};
use crate::Error;

/// A type whose annotated methods declare an extension. `#[aep_extension]` implements
/// [`AepExtension::extension_builder`]; the other methods build on it.
///
/// Call [`AepExtension::extension_builder`] to add what the macro does not declare (option
/// sets, a body limit, extra routes) before building.
pub trait AepExtension: Sized + Send + Sync + 'static {
    /// The builder with the identity, providers, tools and MCP servers declared by the
    /// annotated methods; `self` becomes the shared state every handler sees.
    fn extension_builder(self) -> ExtensionBuilder;

    /// Builds the extension, checking every manifest rule.
    fn into_extension(self) -> Result<Extension, Error> {
        self.extension_builder().build()
    }

    /// Serves the extension (see [`Extension::serve`]).
    fn serve(self) -> impl Future<Output = Result<(), Error>> + Send {
        async move { self.into_extension()?.serve().await }
    }
}
