//! Enums stored and sent as their snake_case names. One macro writes each such enum's name
//! table once: `as_str`, parsing (`FromStr`, `TryFrom<String>`, which the store's row mapping
//! uses), `Display`, and serde under the same names.

/// A name that is not one of an enum's variants (a row not written by this version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    pub kind: &'static str,
    pub name: String,
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}' is not a known {}", self.name, self.kind)
    }
}

impl std::error::Error for UnknownName {}

/// Declares a fieldless enum whose variants are written as the given names.
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The stored and wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::names::UnknownName;

            fn from_str(text: &str) -> Result<Self, $crate::names::UnknownName> {
                $(if text == $text {
                    return Ok(Self::$variant);
                })+
                Err($crate::names::UnknownName { kind: stringify!($name), name: text.to_string() })
            }
        }

        impl TryFrom<String> for $name {
            type Error = $crate::names::UnknownName;

            fn try_from(text: String) -> Result<Self, $crate::names::UnknownName> {
                text.parse()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        // By hand rather than derived: a string in, a string out, and less code in the client.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::named_enum! {
        enum Colour {
            DeepRed = "deep_red",
            Blue = "blue",
        }
    }

    #[test]
    fn names_round_trip_through_text_and_serde() {
        for colour in Colour::ALL {
            assert_eq!(colour.as_str().parse::<Colour>(), Ok(*colour));
            let json = serde_json::to_string(colour).unwrap();
            assert_eq!(json, format!("\"{colour}\""));
        }
        assert_eq!(Colour::try_from("deep_red".to_string()), Ok(Colour::DeepRed));
        let err = "green".parse::<Colour>().unwrap_err();
        assert_eq!(err.to_string(), "'green' is not a known Colour");
    }
}
