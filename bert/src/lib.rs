//! all-MiniLM-L6-v2 on candle: the tokenizer, the BERT encoder, and a pass for each text,
//! giving the last layer's output a row per token. Warren pools it into sentence and word
//! vectors (`src/embed`). A crate of its own so that dev and test builds compile it optimised.
//!
//! The encoder is BERT as candle-transformers writes it, sum for sum, arranged for a learner's
//! message of a few dozen tokens on one core:
//! - a dense layer computes `(W xᵀ)ᵀ`, not `x Wᵀ`: the matrix product then reads the weight
//!   where it lies instead of first copying all of it into its own layout, which took a third
//!   of every pass;
//! - the bias, the activation, the residual and the layer norm are applied as the product is
//!   turned back, in one sweep on this thread (candle's layer norm hands each call to its
//!   thread pool and waits for it, a wake-up thirteen times a pass).
//!
//! Each value is computed by the same operations in the same order, so a text's vectors are
//! the same to the bit as candle-transformers' BERT gave it read alone (a test pins them).

use std::path::Path;

use candle_core::{D, DType, Device, Module, Tensor};
use candle_nn::{Embedding, VarBuilder};
use tokenizers::Tokenizer;

pub use tokenizers::Encoding;

/// Tokens read of one text; the model was trained on at most 256 (longer is cut).
const MAX_TOKENS: usize = 256;

type Result<T> = candle_core::Result<T>;

/// What the encoder needs of the model's `config.json`.
#[derive(serde::Deserialize)]
struct Config {
    vocab_size: usize,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    hidden_act: String,
    max_position_embeddings: usize,
    type_vocab_size: usize,
    layer_norm_eps: f64,
}

/// The loaded model: its tokenizer and its encoder's weights.
pub struct Bert {
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    tokenizer: Tokenizer,
}

/// One of the encoder's layers: self-attention, then the feed-forward part, each added to its
/// input and normalised.
struct Layer {
    /// Query, key and value, one product for the three.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    intermediate: Linear,
    output: Linear,
    output_norm: Norm,
}

/// A dense layer, `x Wᵀ + b`.
struct Linear {
    weight: Tensor,
    bias: Vec<f32>,
}

/// A layer norm over each token's row.
struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

impl Linear {
    fn load(vb: VarBuilder, inputs: usize, outputs: usize) -> Result<Self> {
        Ok(Self { weight: vb.get((outputs, inputs), "weight")?, bias: vb.get(outputs, "bias")?.to_vec1()? })
    }

    /// `then(x Wᵀ + b)`, a row per token (`x` has a row per token). The product comes out a
    /// column per token and is turned back as it is read.
    fn forward(&self, x: &Tensor, then: impl Fn(f32) -> f32) -> Result<Vec<f32>> {
        let tokens = x.dim(0)?;
        let product: Vec<f32> = self.weight.matmul(&x.t()?)?.flatten_all()?.to_vec1()?;
        let outputs = self.bias.len();
        let mut out = vec![0.0; tokens * outputs];
        for (i, (column, bias)) in product.chunks_exact(tokens).zip(&self.bias).enumerate() {
            for (j, value) in column.iter().enumerate() {
                out[j * outputs + i] = then(value + bias);
            }
        }
        Ok(out)
    }
}

impl Norm {
    fn load(vb: VarBuilder, size: usize, eps: f64) -> Result<Self> {
        Ok(Self {
            weight: vb.get(size, "weight")?.to_vec1()?,
            bias: vb.get(size, "bias")?.to_vec1()?,
            eps: eps as f32,
        })
    }

    /// Adds `residual` to `rows` and normalises each row, in place (as candle's layer norm).
    fn add_and_apply(&self, rows: &mut [f32], residual: Option<&[f32]>) {
        let size = self.weight.len();
        if let Some(residual) = residual {
            for (value, r) in rows.iter_mut().zip(residual) {
                *value += r;
            }
        }
        for row in rows.chunks_exact_mut(size) {
            let (mut sum, mut sum2) = (0f32, 0f32);
            for v in row.iter() {
                sum += v;
                sum2 += v * v;
            }
            let mean = sum / size as f32;
            let var = sum2 / size as f32 - mean * mean;
            let inv_std = (var + self.eps).sqrt().recip();
            for ((v, weight), bias) in row.iter_mut().zip(&self.weight).zip(&self.bias) {
                *v = (*v - mean) * inv_std * weight + bias;
            }
        }
    }
}

/// GELU as BERT has it, with the error function (candle's, to the bit).
fn gelu(v: f32) -> f32 {
    (candle_core::cpu::erf::erf_f32(v * std::f32::consts::FRAC_1_SQRT_2) + 1.) * 0.5 * v
}

impl Bert {
    /// Loads the model's files from `dir` (its weights are memory-mapped, not copied); an
    /// error says why they cannot be read.
    pub fn load(dir: &Path) -> std::result::Result<Self, String> {
        let config = std::fs::read_to_string(dir.join("config.json")).map_err(|e| e.to_string())?;
        let config: Config = serde_json::from_str(&config).map_err(|e| e.to_string())?;
        if config.hidden_act != "gelu" {
            return Err(format!("its activation is {}, not gelu", config.hidden_act));
        }
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| e.to_string())?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| e.to_string())?;
        // SAFETY: the weights file is only read, and nothing in Warren writes it while it runs;
        // mapping it spares copying 90 MB into memory.
        let weights = unsafe {
            VarBuilder::from_mmaped_safetensors(&[dir.join("model.safetensors")], DType::F32, &Device::Cpu)
        }
        .map_err(|e| e.to_string())?;
        Self::with_weights(&weights, &config, tokenizer).map_err(|e| e.to_string())
    }

    fn with_weights(vb: &VarBuilder, config: &Config, tokenizer: Tokenizer) -> Result<Self> {
        let (hidden, eps) = (config.hidden_size, config.layer_norm_eps);
        let e = vb.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let l = vb.pp(format!("encoder.layer.{i}"));
                let (attention, output) = (l.pp("attention").pp("self"), l.pp("attention").pp("output"));
                let [q, k, v] =
                    ["query", "key", "value"].map(|name| Linear::load(attention.pp(name), hidden, hidden));
                let (q, k, v) = (q?, k?, v?);
                Ok(Layer {
                    qkv: Linear {
                        weight: Tensor::cat(&[&q.weight, &k.weight, &v.weight], 0)?,
                        bias: [q.bias, k.bias, v.bias].concat(),
                    },
                    attention_out: Linear::load(output.pp("dense"), hidden, hidden)?,
                    attention_norm: Norm::load(output.pp("LayerNorm"), hidden, eps)?,
                    intermediate: Linear::load(
                        l.pp("intermediate").pp("dense"),
                        hidden,
                        config.intermediate_size,
                    )?,
                    output: Linear::load(l.pp("output").pp("dense"), config.intermediate_size, hidden)?,
                    output_norm: Norm::load(l.pp("output").pp("LayerNorm"), hidden, eps)?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            words: candle_nn::embedding(config.vocab_size, hidden, e.pp("word_embeddings"))?,
            positions: candle_nn::embedding(
                config.max_position_embeddings,
                hidden,
                e.pp("position_embeddings"),
            )?,
            token_types: candle_nn::embedding(config.type_vocab_size, hidden, e.pp("token_type_embeddings"))?,
            embedding_norm: Norm::load(e.pp("LayerNorm"), hidden, eps)?,
            layers,
            hidden,
            heads: config.num_attention_heads,
            tokenizer,
        })
    }

    /// The model's reading of `text` in a pass of its own: its tokens, and the last layer's
    /// output for them, a row of the hidden size per token. Padded into one batch with others,
    /// a text's rows would change in their last bits with the length of the others, and a
    /// verdict near a threshold with what else was read that turn. Alone, the products are
    /// small enough to read each weight once a pass, which is what a pass costs.
    pub fn read(&self, text: &str) -> std::result::Result<(Encoding, Vec<f32>), String> {
        let encoding = self.tokenizer.encode(text, true).map_err(|e| e.to_string())?;
        // The tokenizer adds its markers to every text; a tokenizer that does not would leave
        // nothing to read.
        if encoding.get_ids().is_empty() {
            return Err("the tokenizer gave no tokens".into());
        }
        let hidden = self.forward(encoding.get_ids()).map_err(|e| e.to_string())?;
        Ok((encoding, hidden))
    }

    /// The last layer's output for one text, a row per token.
    fn forward(&self, ids: &[u32]) -> Result<Vec<f32>> {
        let ids = Tensor::new(ids, &Device::Cpu)?;
        let positions = Tensor::arange(0u32, ids.dim(0)? as u32, &Device::Cpu)?;
        let embedded = (self.words.forward(&ids)? + self.token_types.forward(&ids.zeros_like()?)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?;
        let mut x: Vec<f32> = embedded.flatten_all()?.to_vec1()?;
        self.embedding_norm.add_and_apply(&mut x, None);
        for layer in &self.layers {
            x = layer.forward(&x, self.hidden, self.heads)?;
        }
        Ok(x)
    }
}

impl Layer {
    /// `x`: a row per token.
    fn forward(&self, x: &[f32], hidden: usize, heads: usize) -> Result<Vec<f32>> {
        let (rows, size) = (x.len() / hidden, hidden / heads);
        let input = Tensor::from_slice(x, (rows, hidden), &Device::Cpu)?;
        let qkv = Tensor::from_vec(self.qkv.forward(&input, |v| v)?, (rows, 3 * hidden), &Device::Cpu)?;
        // heads × tokens × size
        let split = |i: usize| {
            qkv.narrow(1, i * hidden, hidden)?.reshape((rows, heads, size))?.transpose(0, 1)?.contiguous()
        };
        let (q, k, v) = (split(0)?, split(1)?, split(2)?);
        let scores = (q.matmul(&k.t()?)? / (size as f64).sqrt())?;
        let weights = candle_nn::ops::softmax(&scores, D::Minus1)?;
        let context = weights.matmul(&v)?.transpose(0, 1)?.contiguous()?.reshape((rows, hidden))?;
        let mut attended = self.attention_out.forward(&context, |v| v)?;
        self.attention_norm.add_and_apply(&mut attended, Some(x));
        let attended_t = Tensor::from_slice(&attended, (rows, hidden), &Device::Cpu)?;
        let inner = Tensor::from_vec(
            self.intermediate.forward(&attended_t, gelu)?,
            (rows, self.intermediate.bias.len()),
            &Device::Cpu,
        )?;
        let mut out = self.output.forward(&inner, |v| v)?;
        self.output_norm.add_and_apply(&mut out, Some(&attended));
        Ok(out)
    }
}
