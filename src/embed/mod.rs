//! Sentences as vectors: all-MiniLM-L6-v2 (a six-layer BERT, 384 dimensions) run in process
//! with candle, mean-pooled over its tokens and L2-normalised, so the cosine of two sentences
//! is their dot product. The offline judges use it to compare meaning where words differ
//! ("build proteins from mRNA" and "translate messenger RNA into proteins").
//!
//! The model's files come from a package registry at install time (`scripts/lib.sh`,
//! `ensure_model`), never at run time. Without them the offline provider judges by words
//! alone, and says so.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The model's name, as the notices give it.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";
/// Dimensions of a sentence vector.
pub const DIMENSIONS: usize = 384;
/// Sentences whose vectors are kept (a session's points are embedded once, then found here).
const CACHE: usize = 20_000;

/// The files the model is made of, in its folder.
pub const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Why the model could not be loaded: one sentence, with what to do.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "the sentence model is not installed ({0} is missing); scripts/run installs it, or run \
         scripts/install-model"
    )]
    Missing(PathBuf),
    #[error(
        "the sentence model in {dir} cannot be read ({why}); install it again with scripts/install-model"
    )]
    Broken { dir: PathBuf, why: String },
    #[error("the sentence model failed on a text: {0}")]
    Run(String),
    #[error("this build of Warren has no sentence model (it was built without the `model` feature)")]
    NotBuilt,
}

/// A sentence's vector, unit length.
pub type Vector = Arc<[f32]>;

/// A text as the model read it: its vector, and a vector for each word in context (the mean of
/// the word's pieces, unit length), so a point's words can be looked for one by one.
#[derive(Clone, Debug)]
pub struct Reading {
    pub sentence: Vector,
    pub words: Arc<[Word]>,
}

impl Reading {
    /// The reading of the text from byte `from` on, as its words were read in the whole: its
    /// words (spans from `from`) and their mean as its sentence.
    pub fn tail(&self, from: usize) -> Reading {
        let words: Vec<Word> = self
            .words
            .iter()
            .filter(|w| w.span.start >= from)
            .map(|w| Word { span: w.span.start - from..w.span.end - from, vector: w.vector.clone() })
            .collect();
        let vectors: Vec<&[f32]> = words.iter().map(|w| &*w.vector).collect();
        let sentence = if vectors.is_empty() { self.sentence.clone() } else { pooled(&vectors) };
        Reading { sentence, words: words.into() }
    }
}

/// One word of a reading: where it is in the text (bytes), and its vector in context.
#[derive(Clone, Debug)]
pub struct Word {
    pub span: std::ops::Range<usize>,
    pub vector: Vector,
}

/// The loaded model. Cheap to share (`Arc`); embedding runs on the calling thread.
pub struct Embedder {
    #[cfg(feature = "model")]
    bert: warren_bert::Bert,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    readings: HashMap<String, Reading>,
    order: VecDeque<String>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("model", &MODEL_NAME).finish_non_exhaustive()
    }
}

impl Embedder {
    /// Loads the model from `dir` (its weights are memory-mapped, not copied).
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        for file in FILES {
            if !dir.join(file).is_file() {
                return Err(EmbedError::Missing(dir.join(file)));
            }
        }
        #[cfg(feature = "model")]
        {
            let bert = warren_bert::Bert::load(dir)
                .map_err(|why| EmbedError::Broken { dir: dir.to_path_buf(), why })?;
            let embedder = Self { bert, cache: Mutex::new(Cache::default()) };
            // A model that loads but cannot run is found now, not at the first learner's message.
            let probe = embedder.embed(&["A sentence."])?;
            if probe.first().map(|v| v.len()) != Some(DIMENSIONS) {
                return Err(EmbedError::Broken {
                    dir: dir.to_path_buf(),
                    why: format!("its vectors do not have {DIMENSIONS} dimensions"),
                });
            }
            Ok(embedder)
        }
        #[cfg(not(feature = "model"))]
        Err(EmbedError::NotBuilt)
    }

    /// The vectors of `texts`, in order. Texts seen lately come from the cache.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vector>, EmbedError> {
        Ok(self.read(texts)?.into_iter().map(|r| r.sentence).collect())
    }

    /// How the model reads each of `texts`, in order. Texts seen lately come from the cache.
    pub fn read(&self, texts: &[&str]) -> Result<Vec<Reading>, EmbedError> {
        let mut out: Vec<Option<Reading>> = {
            let cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            texts.iter().map(|t| cache.readings.get(*t).cloned()).collect()
        };
        let missing: Vec<usize> = (0..texts.len()).filter(|i| out[*i].is_none()).collect();
        if !missing.is_empty() {
            let fresh = self.run(&missing.iter().map(|i| texts[*i]).collect::<Vec<_>>())?;
            let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for (i, reading) in missing.into_iter().zip(fresh) {
                cache.keep(texts[i], reading.clone());
                out[i] = Some(reading);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// The model's reading of each of `texts`, a pass each.
    fn run(&self, texts: &[&str]) -> Result<Vec<Reading>, EmbedError> {
        #[cfg(feature = "model")]
        return texts
            .iter()
            .map(|text| {
                let (encoding, hidden) = self.bert.read(text).map_err(EmbedError::Run)?;
                Ok(reading(&encoding, &hidden))
            })
            .collect();
        #[cfg(not(feature = "model"))]
        {
            let _ = texts;
            Err(EmbedError::NotBuilt)
        }
    }
}

#[cfg(feature = "model")]
/// A text's reading from the model's output for it (a row of `DIMENSIONS` a token): the
/// sentence is the mean over all its tokens (as the model was trained), a word the mean over
/// its pieces.
fn reading(encoding: &warren_bert::Encoding, hidden: &[f32]) -> Reading {
    let n = encoding.get_ids().len();
    let rows: Vec<&[f32]> = hidden.chunks_exact(DIMENSIONS).collect();
    let sentence = unit(mean(rows.iter().copied().take(n)));
    let mut words: Vec<Word> = Vec::new();
    // The word being read: its number, where it is, its pieces' rows.
    type Open<'a> = (u32, std::ops::Range<usize>, Vec<&'a [f32]>);
    let mut current: Option<Open> = None;
    let pieces = encoding.get_word_ids().iter().zip(encoding.get_offsets()).zip(rows.iter().copied()).take(n);
    for ((word, &(start, end)), row) in pieces {
        match (word, &mut current) {
            (Some(w), Some((id, span, rows))) if w == id => {
                span.end = end;
                rows.push(row);
            }
            (word, _) => {
                if let Some((_, span, rows)) = current.take() {
                    words.push(Word { span, vector: unit(mean(rows.into_iter())) });
                }
                current = word.map(|w| (w, start..end, vec![row]));
            }
        }
    }
    if let Some((_, span, rows)) = current {
        words.push(Word { span, vector: unit(mean(rows.into_iter())) });
    }
    Reading { sentence, words: words.into() }
}

#[cfg(feature = "model")]
fn mean<'a>(rows: impl Iterator<Item = &'a [f32]>) -> Vec<f32> {
    let mut sum = vec![0.0; DIMENSIONS];
    let mut count = 0.0;
    for row in rows {
        for (s, x) in sum.iter_mut().zip(row) {
            *s += x;
        }
        count += 1.0;
    }
    sum.into_iter().map(|s| s / f32::max(count, 1.0)).collect()
}

fn unit(row: Vec<f32>) -> Vector {
    let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::EPSILON);
    row.into_iter().map(|x| x / norm).collect()
}

impl Cache {
    fn keep(&mut self, text: &str, reading: Reading) {
        if self.readings.insert(text.to_string(), reading).is_none() {
            self.order.push_back(text.to_string());
        }
        while self.order.len() > CACHE {
            if let Some(oldest) = self.order.pop_front() {
                self.readings.remove(&oldest);
            }
        }
    }
}

/// The mean of some word vectors, unit length: a stretch of text read in its context.
pub fn pooled(words: &[&[f32]]) -> Vector {
    let mut sum = vec![0.0; DIMENSIONS];
    for word in words {
        for (s, x) in sum.iter_mut().zip(word.iter()) {
            *s += x;
        }
    }
    unit(sum)
}

/// The cosine of two unit vectors.
pub fn similarity(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// How the offline judges compare text, as the notices and `/readyz` say it.
#[derive(Clone, Debug)]
pub enum Judgement {
    /// With the sentence model.
    Meaning(Arc<Embedder>),
    /// By words alone: the model could not be loaded, and why.
    Words(String),
}

impl Judgement {
    /// Loads the model from `dir`, or says why the judges fall back to words.
    pub fn load(dir: &Path) -> Self {
        match Embedder::load(dir) {
            Ok(embedder) => Judgement::Meaning(Arc::new(embedder)),
            Err(err) => Judgement::Words(err.to_string()),
        }
    }

    pub fn embedder(&self) -> Option<&Arc<Embedder>> {
        match self {
            Judgement::Meaning(embedder) => Some(embedder),
            Judgement::Words(_) => None,
        }
    }

    /// One line for the console, the provider notice and `/readyz`.
    pub fn describe(&self) -> String {
        match self {
            Judgement::Meaning(_) => {
                let siblings = match crate::text::kinship::nouns() {
                    Some(_) => "WordNet's nouns loaded (a sibling term is a wrong detail)",
                    None => "no WordNet nouns: scripts/install-model installs them",
                };
                format!(
                    "sentence model {MODEL_NAME} loaded (the offline judges compare meaning and words); {siblings}"
                )
            }
            Judgement::Words(why) => format!("judges by word matching only: {why}"),
        }
    }
}

#[cfg(test)]
#[cfg(feature = "model")]
mod tests {
    use super::*;

    fn model() -> Embedder {
        Embedder::load(Path::new("data/models/all-MiniLM-L6-v2"))
            .expect("the sentence model, which scripts/test installs")
    }

    /// The encoder's arithmetic is pinned: these figures are what candle-transformers' BERT gave
    /// for these sentences (Warren ran it until its own encoder, `bert/`, replaced it). A change
    /// that moves them moves every judgement calibrated on the development set. The last bits
    /// follow the processor (the matrix products sum in the order its vector width sets: a
    /// machine with AVX-512 differs from one without in the seventh decimal), so they are
    /// compared to a millionth, far below anything a judgement turns on.
    #[test]
    fn the_encoder_reads_as_the_reference_bert_does() {
        let [ribosomes, paraphrase] =
            ["Ribosomes translate messenger RNA into proteins.", "ribosomes build proteins from the mRNA"]
                .map(|text| model().embed(&[text]).expect("embeds")[0].clone());
        let close = |got: f32, want: f32| (got - want).abs() < 1e-6;
        let reference = [0.07995561, -0.054164577, -0.06546148, 0.008793364];
        assert!(ribosomes[..4].iter().zip(reference).all(|(g, w)| close(*g, w)), "{:?}", &ribosomes[..4]);
        let near = similarity(&ribosomes, &paraphrase);
        assert!(close(near, 0.84457666), "{near}");
    }

    /// A text reads the same whatever it is read with: each has a pass of its own, so a
    /// point's reading does not hang on the other texts of the turn that first read it.
    #[test]
    fn a_text_reads_the_same_alone_and_beside_longer_ones() {
        let embedder = model();
        let short = "The nucleus keeps the DNA.";
        let long = "The rough endoplasmic reticulum is studded with ribosomes and makes proteins for export.";
        let together = embedder.run(&[long, short]).expect("reads");
        let alone = embedder.run(&[short]).expect("reads");
        assert_eq!(&*together[1].sentence, &*alone[0].sentence);
        assert_eq!(together[1].words.len(), alone[0].words.len());
        for (a, b) in together[1].words.iter().zip(alone[0].words.iter()) {
            assert_eq!((&a.span, &*a.vector), (&b.span, &*b.vector));
        }
    }
}
