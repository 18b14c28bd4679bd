//! Reading server frames in the browser without serde's buffering of tagged enums.

use serde::Deserialize;

use super::{FrameType, ServerFrame, ServerMessage};

impl<'de> Deserialize<'de> for ServerMessage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ServerFrame::deserialize(deserializer).map(|frame| frame.message)
    }
}

/// Reads a frame whose first field is `type` and hands the rest of the object straight to
/// the payload's own `Deserialize` (taking `seq` out on the way, wherever it stands). Serde's
/// derive for internally tagged enums would buffer every frame into an intermediate tree
/// first, which costs the browser a sizeable share of its WebAssembly; the server always
/// writes `type` first, so nothing needs buffering.
impl<'de> Deserialize<'de> for ServerFrame {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FrameVisitor)
    }
}

struct FrameVisitor;

impl<'de> serde::de::Visitor<'de> for FrameVisitor {
    type Value = ServerFrame;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a frame: an object whose first field is `type`")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ServerFrame, A::Error> {
        use serde::de::Error;
        if map.next_key::<String>()?.as_deref() != Some("type") {
            return Err(A::Error::custom("the first field of a frame must be `type`"));
        }
        let kind: FrameType = map.next_value()?;
        let mut seq = None;
        // A pong's `timestamp` is its payload.
        let mut timestamp = None;
        let stamp = (kind != FrameType::Pong).then_some(&mut timestamp);
        let rest =
            serde::de::value::MapAccessDeserializer::new(TakeSeq { map, seq: &mut seq, timestamp: stamp });
        let message = kind.payload(rest)?;
        Ok(ServerFrame { message, seq, timestamp })
    }
}

/// The rest of a frame's fields, with `seq` taken out for the frame and every other field
/// passed on to the payload; the same for the envelope's `timestamp` when the frame's
/// payload has none of its own.
struct TakeSeq<'s, A> {
    map: A,
    seq: &'s mut Option<u64>,
    timestamp: Option<&'s mut Option<i64>>,
}

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for TakeSeq<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        use serde::de::IntoDeserializer;
        while let Some(key) = self.map.next_key::<String>()? {
            if key == "seq" {
                *self.seq = self.map.next_value()?;
                continue;
            }
            if key == "timestamp"
                && let Some(timestamp) = self.timestamp.as_deref_mut()
            {
                *timestamp = self.map.next_value()?;
                continue;
            }
            return seed.deserialize(key.into_deserializer()).map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}
