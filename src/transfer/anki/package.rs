//! An Anki package opened: its collection and media, whichever format wrote them. Current
//! Anki (23.10+) writes `collection.anki21b`, the media map as a protobuf list and every media
//! file compressed with zstd, and says so in a `meta` entry; older packages hold
//! `collection.anki21` (or `collection.anki2`) and a JSON media map. `.apkg` (a deck) and
//! `.colpkg` (a whole collection) are laid out alike. Every unpacked size is capped, so a
//! small file cannot unpack into a large one.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use warren_app::forms::limits;

use super::super::ImportError;

/// The newest package format read (`meta`'s version: 1 `anki2`, 2 `anki21`, 3 `anki21b`).
pub const NEWEST_PACKAGE: u64 = 3;
/// The most a collection may unpack to.
pub const MAX_COLLECTION_BYTES: u64 = 512 * 1024 * 1024;
/// The most a media map may unpack to.
const MAX_MAP_BYTES: u64 = 16 * 1024 * 1024;
/// The most a package's images may unpack to, all together (each is also capped at
/// `limits::IMAGE_BYTES`): a media list may name one small zip entry many times.
pub const MAX_MEDIA_BYTES: u64 = 100 * 1024 * 1024;

type Archive<'a> = zip::ZipArchive<Cursor<&'a [u8]>>;

/// A package whose collection has been taken out; its media files are read on demand.
pub struct Package<'a> {
    archive: Archive<'a>,
    /// Media files are compressed with zstd (current format).
    zstd: bool,
    /// Each media file's name, to the zip entry holding it.
    media: HashMap<String, String>,
    /// What the media read so far unpacked to.
    unpacked: u64,
}

/// A media file, as the package holds it.
#[derive(Debug, PartialEq)]
pub enum Media {
    Found(Vec<u8>),
    /// The package does not hold it.
    Missing,
    /// It unpacks to more than an image may be.
    TooLarge,
    /// It cannot be unpacked.
    Damaged,
    /// The package's images together unpack to more than [`MAX_MEDIA_BYTES`].
    OverBudget,
}

/// Opens a package: its collection's SQLite bytes, and the package for its media.
pub fn open(bytes: &[u8]) -> Result<(Vec<u8>, Package<'_>), ImportError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|_| {
        // A zip's table of contents is at its end: one that starts as a zip and has none was
        // cut off (a download or copy that did not finish).
        if bytes.starts_with(b"PK") { ImportError::CutShort } else { ImportError::NotZip }
    })?;
    let names: Vec<String> = archive.file_names().map(str::to_string).collect();
    let has = |name: &str| names.iter().any(|n| n == name);
    let version = match entry(&mut archive, "meta", 1024)? {
        Some(meta) => package_version(&meta)?,
        None => 0,
    };
    if version > NEWEST_PACKAGE {
        return Err(ImportError::NewerPackage(version));
    }
    // A current package also holds a `collection.anki2` that only says "update Anki".
    let (name, zstd) = if has("collection.anki21b") {
        ("collection.anki21b", true)
    } else if has("collection.anki21") {
        ("collection.anki21", false)
    } else if has("collection.anki2") {
        ("collection.anki2", false)
    } else {
        return Err(ImportError::NoCollection);
    };
    let stored = entry(&mut archive, name, MAX_COLLECTION_BYTES)?.ok_or(ImportError::NoCollection)?;
    let collection = if zstd { unzstd(&stored, MAX_COLLECTION_BYTES, "collection")? } else { stored };
    let media = match entry(&mut archive, "media", MAX_MAP_BYTES)? {
        None => HashMap::new(),
        Some(map) if zstd => media_entries(&unzstd(&map, MAX_MAP_BYTES, "media list")?)?,
        // Older packages: {"0": "cell.png", …}. A map that cannot be read leaves images out,
        // each with its reason, rather than the whole deck.
        Some(map) => serde_json::from_slice::<HashMap<String, String>>(&map)
            .unwrap_or_default()
            .into_iter()
            .map(|(key, name)| (name, key))
            .collect(),
    };
    Ok((collection, Package { archive, zstd, media, unpacked: 0 }))
}

impl Package<'_> {
    /// A media file's bytes, or why there are none.
    pub fn media(&mut self, name: &str) -> Media {
        let Some(key) = self.media.get(name).cloned() else { return Media::Missing };
        let cap = (limits::IMAGE_BYTES as u64).min(MAX_MEDIA_BYTES.saturating_sub(self.unpacked));
        let over = |unpacked: u64| {
            if unpacked + (limits::IMAGE_BYTES as u64) > MAX_MEDIA_BYTES {
                Media::OverBudget
            } else {
                Media::TooLarge
            }
        };
        // Stored uncompressed, a file is as large as it unpacks to; compressed, it is smaller.
        let stored =
            match entry(&mut self.archive, &key, if self.zstd { limits::IMAGE_BYTES as u64 } else { cap }) {
                Ok(Some(stored)) => stored,
                Ok(None) => return Media::Missing,
                Err(ImportError::Unpacks(..)) => return over(self.unpacked),
                Err(_) => return Media::Damaged,
            };
        let bytes = if self.zstd {
            match unzstd(&stored, cap, "image") {
                Ok(bytes) => bytes,
                Err(ImportError::Unpacks(..)) => return over(self.unpacked),
                Err(_) => return Media::Damaged,
            }
        } else {
            stored
        };
        self.unpacked += bytes.len() as u64;
        Media::Found(bytes)
    }
}

/// A zip entry's bytes, if the package has it; refused when it unpacks to more than `cap`.
fn entry(archive: &mut Archive<'_>, name: &str, cap: u64) -> Result<Option<Vec<u8>>, ImportError> {
    let Ok(file) = archive.by_name(name) else { return Ok(None) };
    let mut bytes = Vec::with_capacity(usize::try_from(file.size().min(cap)).unwrap_or(0).min(1 << 26));
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| ImportError::Damaged(format!("{name}: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(ImportError::Unpacks(name.to_string(), cap / (1024 * 1024)));
    }
    Ok(Some(bytes))
}

/// Undoes zstd, refusing more than `cap` bytes out.
fn unzstd(bytes: &[u8], cap: u64, what: &str) -> Result<Vec<u8>, ImportError> {
    let decoder = ruzstd::decoding::StreamingDecoder::new(bytes)
        .map_err(|e| ImportError::Damaged(format!("its {what} is not zstd ({e})")))?;
    let mut out = Vec::new();
    decoder
        .take(cap + 1)
        .read_to_end(&mut out)
        .map_err(|e| ImportError::Damaged(format!("its {what} is cut short ({e})")))?;
    if out.len() as u64 > cap {
        return Err(ImportError::Unpacks(what.to_string(), cap / (1024 * 1024)));
    }
    Ok(out)
}

/// `meta`: a protobuf whose field 1 is the package's format version.
fn package_version(meta: &[u8]) -> Result<u64, ImportError> {
    for field in Fields(meta) {
        if let (1, Value::Varint(version)) = field? {
            return Ok(version);
        }
    }
    Ok(0)
}

/// The current media list: protobuf `MediaEntries { repeated MediaEntry entries = 1; }`, each
/// `{ string name = 1; uint32 size = 2; bytes sha1 = 3; optional uint32 legacy_zip_filename = 4; }`.
/// The n-th entry's file is the zip entry named n (or its legacy name, when given).
fn media_entries(list: &[u8]) -> Result<HashMap<String, String>, ImportError> {
    let mut media = HashMap::new();
    for (index, field) in Fields(list).enumerate() {
        let (1, Value::Bytes(entry)) = field? else { continue };
        let mut name = None;
        let mut zip_name = index.to_string();
        for part in Fields(entry) {
            match part? {
                (1, Value::Bytes(bytes)) => name = Some(String::from_utf8_lossy(bytes).into_owned()),
                (4, Value::Varint(legacy)) => zip_name = legacy.to_string(),
                _ => {}
            }
        }
        if let Some(name) = name {
            media.insert(name, zip_name);
        }
    }
    Ok(media)
}

/// A protobuf field's value, as far as Anki's small messages need.
#[derive(Debug, PartialEq)]
pub enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    /// A fixed 32- or 64-bit value, not read.
    Fixed,
}

/// The fields of a protobuf message, in order: (number, value). A few lines rather than a
/// code generator: the three messages read here have a handful of fields each.
pub struct Fields<'a>(pub &'a [u8]);

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>), ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let field = (|| {
            let key = varint(&mut self.0)?;
            let value = match key & 7 {
                0 => Value::Varint(varint(&mut self.0)?),
                1 => Value::Fixed.skip(&mut self.0, 8)?,
                2 => {
                    let len = usize::try_from(varint(&mut self.0)?).ok()?;
                    let bytes = self.0.get(..len)?;
                    self.0 = &self.0[len..];
                    Value::Bytes(bytes)
                }
                5 => Value::Fixed.skip(&mut self.0, 4)?,
                _ => return None,
            };
            Some((key >> 3, value))
        })();
        match field {
            Some(field) => Some(Ok(field)),
            None => {
                self.0 = &[];
                Some(Err(ImportError::Damaged("a protobuf message in it is cut short".into())))
            }
        }
    }
}

impl<'a> Value<'a> {
    fn skip(self, bytes: &mut &'a [u8], n: usize) -> Option<Self> {
        *bytes = bytes.get(n..)?;
        Some(self)
    }
}

fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0_u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A zip of `(name, bytes)` entries, deflated.
    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options =
            zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in entries {
            zip.start_file(*name, options).expect("a zip entry");
            zip.write_all(bytes).expect("its bytes");
        }
        zip.finish().expect("a zip").into_inner()
    }

    fn zstd(bytes: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
    }

    #[test]
    fn a_zip_or_zstd_bomb_is_refused_once_it_unpacks_past_its_cap() {
        let zeros = vec![0_u8; 3 * 1024 * 1024];
        // Deflated, three megabytes of zeros are a few kilobytes: the size of the file says
        // nothing of what it unpacks to, the cap does.
        let zipped = zip_of(&[("collection.anki21", &zeros)]);
        assert!(zipped.len() < 50_000, "{}", zipped.len());
        let mut archive = zip::ZipArchive::new(Cursor::new(&zipped[..])).expect("a zip");
        assert!(matches!(
            entry(&mut archive, "collection.anki21", 1024 * 1024),
            Err(ImportError::Unpacks(name, 1)) if name == "collection.anki21"
        ));
        assert_eq!(
            entry(&mut archive, "collection.anki21", 4 * 1024 * 1024).ok().flatten().map(|b| b.len()),
            Some(zeros.len())
        );
        let squeezed = zstd(&zeros);
        assert!(squeezed.len() < 50_000, "{}", squeezed.len());
        assert!(
            matches!(unzstd(&squeezed, 1024 * 1024, "collection"), Err(ImportError::Unpacks(what, 1)) if what == "collection")
        );
        assert!(matches!(
            unzstd(&squeezed[..squeezed.len() / 2], 4 * 1024 * 1024, "collection"),
            Err(ImportError::Damaged(_))
        ));
    }

    #[test]
    fn an_image_that_unpacks_past_the_image_cap_is_left_out_in_either_format() {
        let huge = vec![0_u8; limits::IMAGE_BYTES + 1];
        // Anki 2.1: a JSON media map, the file deflated.
        let old =
            zip_of(&[("collection.anki21", b"sqlite"), ("media", br#"{"0": "big.png"}"#), ("0", &huge)]);
        let (collection, mut package) = open(&old).expect("an older package");
        assert_eq!(collection, b"sqlite");
        assert_eq!(package.media("big.png"), Media::TooLarge);
        assert_eq!(package.media("other.png"), Media::Missing);
        // Anki 23.10+: meta says version 3, the media list is a protobuf, both zstd.
        let list = [0x0a, 0x09, 0x0a, 0x07, b'b', b'i', b'g', b'.', b'p', b'n', b'g'];
        let current = zip_of(&[
            ("meta", &[0x08, 0x03]),
            ("collection.anki21b", &zstd(b"sqlite")),
            ("media", &zstd(&list)),
            ("0", &zstd(&huge)),
        ]);
        let (collection, mut package) = open(&current).expect("a current package");
        assert_eq!(collection, b"sqlite");
        assert_eq!(package.media("big.png"), Media::TooLarge);
    }

    #[test]
    fn protobuf_fields_read_as_anki_writes_them() {
        // MediaEntries with one entry: name "a.png", size 69, sha1 of two bytes.
        let list = [0x0a, 0x0d, 0x0a, 0x05, b'a', b'.', b'p', b'n', b'g', 0x10, 0x45, 0x1a, 0x02, 0xab, 0x43];
        assert_eq!(media_entries(&list).ok(), Some(HashMap::from([("a.png".into(), "0".into())])));
        assert_eq!(package_version(&[0x08, 0x03]).ok(), Some(3));
        assert!(package_version(&[0x08]).is_err(), "cut short");
        assert!(media_entries(&[0x0a, 0x20, 0x0a]).is_err(), "a length past the end");
        let mut big = &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01][..];
        assert_eq!(varint(&mut big), None, "longer than 64 bits");
    }
}
