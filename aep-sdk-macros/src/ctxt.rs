//! The error context: every misuse found is collected and reported together.

use std::cell::{Cell, RefCell};
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Every error found, reported together. As serde_derive's `Ctxt`, it is shared (`&Ctxt`)
/// so that each typed attribute being filled can hold it while the others do too. It must
/// be checked with [`Ctxt::check`]: dropping it unchecked is a bug in this crate and panics.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
    checked: Cell<bool>,
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !self.checked.get() && !std::thread::panicking() {
            panic!("aep-sdk-macros: errors dropped without being checked");
        }
    }
}

impl Ctxt {
    pub fn push(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// An error on `tokens` (on stable Rust, on their first token).
    pub fn error_spanned_by(&self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn take<T>(&self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    /// All the errors as one, if any.
    pub fn check(self) -> Result<(), syn::Error> {
        self.checked.set(true);
        let mut iter = self.errors.take().into_iter();
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
pub fn err(span: Span, message: impl Display) -> syn::Error {
    syn::Error::new(span, message)
}
