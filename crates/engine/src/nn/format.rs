//! The network file format (see the [module documentation](super)):
//! version 1 for a value network alone, version 2 when it has extra heads.

use super::heads::{Heads, EXACT_OUTPUTS, POLICY_OUTPUTS};
use super::{fnv1a64, Layer, Network, NetworkError, FORMAT_VERSION, INPUTS, MAGIC, SCORE_SCALE};
use crate::rules::RuleSet;

/// The format version of a network with extra heads (an exact or a policy
/// head); a value network alone is still written as version 1, so its
/// bytes and id do not change.
pub const HEADS_FORMAT_VERSION: u32 = 2;

impl Network {
    /// The architecture description written into the file.
    pub fn description(&self) -> String {
        let layers: Vec<String> = self.layers.iter().map(|l| l.outputs.to_string()).collect();
        let mut text = format!("inputs={INPUTS};layers={};activation=crelu;scale={}", layers.join(","), SCORE_SCALE);
        // BrainKing networks name no rules, so their files and ids are those
        // of the networks written before rule sets existed.
        if self.rules != RuleSet::BrainKing {
            text += &format!(";rules={}", self.rules);
        }
        text += &self.heads.description();
        text
    }

    /// The architecture hash (FNV-1a of the description).
    pub fn architecture_hash(&self) -> u64 {
        fnv1a64(self.description().as_bytes())
    }

    /// The network as file bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let description = self.description();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.format_version().to_le_bytes());
        out.extend_from_slice(&(description.len() as u32).to_le_bytes());
        out.extend_from_slice(description.as_bytes());
        out.extend_from_slice(&fnv1a64(description.as_bytes()).to_le_bytes());
        for layer in self.layers.iter().chain(self.heads.layers()) {
            for w in layer.weights.iter().chain(&layer.bias) {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        let checksum = fnv1a64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Reads file bytes, refusing anything that is not exactly a valid network.
    ///
    /// # Errors
    ///
    /// [`NetworkError::BadMagic`] when the bytes do not start with the magic
    /// `ALQNET\x1a\n`; [`NetworkError::Version`] for a format version other
    /// than 1 and 2; [`NetworkError::Truncated`] when they end early;
    /// [`NetworkError::Architecture`] for a description that is over 4,096
    /// bytes, not UTF-8, or not an architecture this engine evaluates (other
    /// than [`INPUTS`] inputs, an output width other than 1 or 3, a width
    /// of 0 or over 4,096, another activation or scale, an unknown key,
    /// head or rule set, a confidence outside 0.5–1, heads in a version 1
    /// file or none in a version 2 file); [`NetworkError::ArchitectureHash`] when the stored hash is
    /// not the description's; [`NetworkError::Checksum`] when the bytes are
    /// damaged; [`NetworkError::Trailing`] for bytes after the checksum.
    ///
    /// # Examples
    ///
    /// ```
    /// use alq_engine::{Network, NetworkError, DEFAULT_NETWORK};
    ///
    /// let net = Network::from_bytes(DEFAULT_NETWORK).unwrap();
    /// assert_eq!(net.to_bytes(), DEFAULT_NETWORK);
    /// assert_eq!(Network::from_bytes(b"not a network"), Err(NetworkError::BadMagic));
    /// let short = &DEFAULT_NETWORK[..100];
    /// assert!(matches!(Network::from_bytes(short), Err(NetworkError::Truncated(_))));
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8, "magic")? != MAGIC {
            return Err(NetworkError::BadMagic);
        }
        let version = r.u32("version")?;
        if version != FORMAT_VERSION && version != HEADS_FORMAT_VERSION {
            return Err(NetworkError::Version { found: version });
        }
        let len = r.u32("description length")? as usize;
        if len > 4096 {
            return Err(NetworkError::Architecture {
                description: String::new(),
                problem: format!("{len} bytes long"),
            });
        }
        let description = String::from_utf8(r.take(len, "description")?.to_vec())
            .map_err(|_| NetworkError::Architecture { description: String::new(), problem: "not UTF-8".to_string() })?;
        let found = r.u64("architecture hash")?;
        let expected = fnv1a64(description.as_bytes());
        if found != expected {
            return Err(NetworkError::ArchitectureHash { found, expected });
        }
        let parsed = parse_description(&description)?;
        let has_heads = parsed.exact || parsed.policy;
        if has_heads != (version == HEADS_FORMAT_VERSION) {
            return Err(NetworkError::Architecture {
                problem: format!(
                    "a version {version} file {}",
                    if has_heads { "cannot have extra heads" } else { "must name its extra heads" }
                ),
                description,
            });
        }
        let mut read_layer = |inputs: usize, outputs: usize| -> Result<Layer, NetworkError> {
            let mut layer = Layer::zeros(inputs, outputs);
            for v in layer.weights.iter_mut().chain(layer.bias.iter_mut()) {
                *v = f32::from_le_bytes(r.take(4, "weights")?.try_into().expect("four bytes"));
            }
            Ok(layer)
        };
        let sizes = &parsed.sizes;
        let layers = sizes.windows(2).map(|w| read_layer(w[0], w[1])).collect::<Result<Vec<_>, _>>()?;
        // The heads read the last hidden layer, as the value output does.
        let hidden = sizes[sizes.len() - 2];
        let exact = if parsed.exact { Some(read_layer(hidden, EXACT_OUTPUTS)?) } else { None };
        let policy = if parsed.policy { Some(read_layer(hidden, POLICY_OUTPUTS)?) } else { None };
        let heads = Heads { exact, confidence: parsed.confidence, policy };
        let body_end = r.at;
        let stored = r.u64("checksum")?;
        let computed = fnv1a64(&bytes[..body_end]);
        if stored != computed {
            return Err(NetworkError::Checksum { found: stored, expected: computed });
        }
        if r.at != bytes.len() {
            return Err(NetworkError::Trailing(bytes.len() - r.at));
        }
        let net = Network { layers, rules: parsed.rules, heads };
        // A format 2 description must be the one this network writes (heads
        // in file order, one confidence written as written): another order
        // would read the heads' weights into the wrong layers.
        if has_heads && net.description() != description {
            return Err(NetworkError::Architecture {
                problem: format!("not in the written form {:?}", net.description()),
                description,
            });
        }
        Ok(net)
    }

    /// The format version its bytes are written in: 1 for a value network
    /// alone, 2 with extra heads.
    pub fn format_version(&self) -> u32 {
        if self.heads.is_empty() {
            FORMAT_VERSION
        } else {
            HEADS_FORMAT_VERSION
        }
    }
}

/// What a description says.
struct Parsed {
    sizes: Vec<usize>,
    rules: RuleSet,
    exact: bool,
    policy: bool,
    confidence: f32,
}

fn parse_description(description: &str) -> Result<Parsed, NetworkError> {
    let bad = |problem: &str| NetworkError::Architecture {
        description: description.to_string(),
        problem: problem.to_string(),
    };
    let mut inputs = None;
    let mut layers = None;
    let mut rules = RuleSet::BrainKing;
    let (mut exact, mut policy, mut confidence) = (false, false, None);
    for part in description.split(';') {
        let (key, value) = part.split_once('=').ok_or_else(|| bad("expected key=value parts"))?;
        match key {
            "inputs" => inputs = Some(value.parse::<usize>().map_err(|_| bad("inputs is not a number"))?),
            "layers" => {
                layers = Some(
                    value
                        .split(',')
                        .map(|v| v.parse::<usize>().map_err(|_| bad("layers are not numbers")))
                        .collect::<Result<Vec<_>, _>>()?,
                )
            }
            "activation" if value == "crelu" => {}
            "activation" => return Err(bad("only the crelu activation is known")),
            "scale" if value.parse::<f32>().ok() == Some(SCORE_SCALE) => {}
            "scale" => return Err(bad(&format!("scale must be {SCORE_SCALE}"))),
            "rules" => rules = value.parse::<RuleSet>().map_err(|e| bad(&e))?,
            "heads" => {
                for head in value.split(',') {
                    let seen = match head {
                        "exact" => &mut exact,
                        "policy" => &mut policy,
                        _ => return Err(bad(&format!("unknown head {head:?} (known: exact, policy)"))),
                    };
                    if std::mem::replace(seen, true) {
                        return Err(bad(&format!("head {head:?} named twice")));
                    }
                }
            }
            "confidence" => {
                let c = value.parse::<f32>().map_err(|_| bad("confidence is not a number"))?;
                if !(0.5..=1.0).contains(&c) {
                    return Err(bad("confidence must be from 0.5 to 1"));
                }
                confidence = Some(c);
            }
            _ => return Err(bad(&format!("unknown key {key:?}"))),
        }
    }
    let inputs = inputs.ok_or_else(|| bad("no inputs"))?;
    if inputs != INPUTS {
        return Err(bad(&format!("{inputs} inputs, this engine has {INPUTS} features")));
    }
    let layers = layers.ok_or_else(|| bad("no layers"))?;
    if layers.len() < 2 || !matches!(layers.last(), Some(1 | 3)) || layers.iter().any(|&w| w == 0 || w > 4096) {
        return Err(bad(
            "layers must be hidden widths from 1 to 4096 ending in 1 (a score logit) or 3 (win, draw and loss logits)",
        ));
    }
    if confidence.is_some() != exact {
        return Err(bad("an exact head and its confidence come together"));
    }
    let mut sizes = vec![inputs];
    sizes.extend(layers);
    Ok(Parsed { sizes, rules, exact, policy, confidence: confidence.unwrap_or(Heads::DEFAULT_CONFIDENCE) })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], NetworkError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| {
            NetworkError::Truncated(format!("{} bytes, ended while reading the {what}", self.bytes.len()))
        })?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u32(&mut self, what: &str) -> Result<u32, NetworkError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("four bytes")))
    }

    fn u64(&mut self, what: &str) -> Result<u64, NetworkError> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().expect("eight bytes")))
    }
}
