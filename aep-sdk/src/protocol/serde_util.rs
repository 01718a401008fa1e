//! Small serde helpers shared by the wire types.

use serde::{Deserialize, Deserializer};

/// Reads `null` as the type's default (the C# reference writes `null` for empty lists).
pub(crate) fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}
