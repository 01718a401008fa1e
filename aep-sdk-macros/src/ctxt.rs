//! The error context: every misuse found is collected and reported together.

use proc_macro2::Span;

/// Every error found, reported together. Like serde_derive's `Ctxt`, it must be checked
/// with [`Errors::into_result`]: dropping it unchecked is a bug in this crate and panics.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>, bool);

impl Drop for Errors {
    fn drop(&mut self) {
        if !self.1 && !std::thread::panicking() {
            panic!("aep-sdk-macros: errors dropped without being checked");
        }
    }
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }
    pub fn extend(&mut self, errors: impl IntoIterator<Item = syn::Error>) {
        self.0.extend(errors);
    }
    pub fn take<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }
    pub fn into_result(mut self) -> Result<(), syn::Error> {
        self.1 = true;
        let mut iter = std::mem::take(&mut self.0).into_iter();
        let Some(mut first) = iter.next() else {
            return Ok(());
        };
        for error in iter {
            first.combine(error);
        }
        Err(first)
    }
}

/// An error on `span`.
pub fn err(span: Span, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, message)
}
