//! How columns that are not plain text or numbers are read: flags stored as 0/1, JSON stored
//! as text, and optional enum names. Each is a column type for `#[sqlx(try_from = …)]`, so a
//! row struct derives `FromRow` and keeps its natural field types (`bool`, `Vec<String>`,
//! `Option<Speaker>`). sqlx's `Any` driver has no JSON and reads 0/1 as integers, which is why
//! these exist.

use std::str::FromStr;

use serde::de::DeserializeOwned;
use sqlx::any::{Any, AnyTypeInfo, AnyValueRef};
use sqlx::decode::Decode;
use sqlx::error::BoxDynError;
use sqlx::types::Type;

/// Implements `Type` and `Decode` for a newtype by delegating to the type it wraps.
macro_rules! column {
    ($name:ident($inner:ty)) => {
        impl Type<Any> for $name {
            fn type_info() -> AnyTypeInfo {
                <$inner as Type<Any>>::type_info()
            }

            fn compatible(ty: &AnyTypeInfo) -> bool {
                <$inner as Type<Any>>::compatible(ty)
            }
        }

        impl<'r> Decode<'r, Any> for $name {
            fn decode(value: AnyValueRef<'r>) -> Result<Self, BoxDynError> {
                <$inner as Decode<'r, Any>>::decode(value).map($name)
            }
        }
    };
}

/// A `BIGINT` holding 0 or 1.
pub struct Flag(i64);
column!(Flag(i64));

impl From<Flag> for bool {
    fn from(flag: Flag) -> bool {
        flag.0 != 0
    }
}

/// A `TEXT` column holding JSON.
pub struct JsonText(String);
column!(JsonText(String));

impl<T: DeserializeOwned> TryFrom<JsonText> for Vec<T> {
    type Error = serde_json::Error;

    fn try_from(text: JsonText) -> Result<Self, Self::Error> {
        serde_json::from_str(&text.0)
    }
}

/// A nullable `TEXT` column holding JSON.
pub struct MaybeJson(Option<String>);
column!(MaybeJson(Option<String>));

impl TryFrom<MaybeJson> for Option<serde_json::Value> {
    type Error = serde_json::Error;

    fn try_from(text: MaybeJson) -> Result<Self, Self::Error> {
        text.0.map(|t| serde_json::from_str(&t)).transpose()
    }
}

/// A nullable `TEXT` column holding one of an enum's names (see `warren_app::named_enum!`).
pub struct MaybeName(Option<String>);
column!(MaybeName(Option<String>));

impl<T: FromStr> TryFrom<MaybeName> for Option<T> {
    type Error = T::Err;

    fn try_from(text: MaybeName) -> Result<Self, Self::Error> {
        text.0.map(|t| t.parse()).transpose()
    }
}

/// Encodes a value for a JSON column.
pub fn json_text(value: &impl serde::Serialize) -> Result<String, super::StoreError> {
    serde_json::to_string(value).map_err(|e| super::StoreError::Corrupt(format!("cannot encode JSON: {e}")))
}
