//! The helper attributes `#[aep_extension]` reads on the methods of its impl.

/// One helper attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Helper {
    Tool,
    Resource,
    Prompt,
    Complete,
    ModelProvider,
    /// `#[chat]`, `#[models]`, `#[health]`: siblings of a `#[model_provider]`.
    Sibling(SiblingKind),
    OptionSet,
}

/// What a sibling of a `#[model_provider]` serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SiblingKind {
    Chat,
    Models,
    Health,
}

impl SiblingKind {
    pub fn name(self) -> &'static str {
        match self {
            SiblingKind::Chat => "chat",
            SiblingKind::Models => "models",
            SiblingKind::Health => "health",
        }
    }
}

impl Helper {
    pub const ALL: [Helper; 9] = [
        Helper::Tool,
        Helper::Resource,
        Helper::Prompt,
        Helper::Complete,
        Helper::ModelProvider,
        Helper::Sibling(SiblingKind::Models),
        Helper::Sibling(SiblingKind::Health),
        Helper::Sibling(SiblingKind::Chat),
        Helper::OptionSet,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Helper::Tool => "tool",
            Helper::Resource => "resource",
            Helper::Prompt => "prompt",
            Helper::Complete => "complete",
            Helper::ModelProvider => "model_provider",
            Helper::Sibling(kind) => kind.name(),
            Helper::OptionSet => "option_set",
        }
    }

    /// The helper `attr` is, if any.
    pub fn of(attr: &syn::Attribute) -> Option<Helper> {
        Helper::ALL.into_iter().find(|h| attr.path().is_ident(h.name()))
    }
}
