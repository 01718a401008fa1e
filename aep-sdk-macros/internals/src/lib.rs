//! Grammars shared by `aep-sdk` and `aep-sdk-macros`: [`duration`] and [`uri_template`].
//! Not public API; depend on `aep-sdk`.

pub mod duration;
pub mod uri_template;
