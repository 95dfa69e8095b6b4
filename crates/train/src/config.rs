//! The training configuration, as read from `configs/train.toml`.

use serde::{Deserialize, Serialize};

/// Everything that defines a training run. Every key has a default; unknown
/// keys are an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Hidden layer widths; the first is the incrementally updated layer.
    pub hidden: Vec<usize>,
    /// Passes over the training data (at most; early stopping may end sooner).
    pub epochs: usize,
    pub batch_size: usize,
    /// Peak learning rate of the cosine schedule (AdamW).
    pub learning_rate: f64,
    /// Learning rate at the end of the schedule.
    pub min_learning_rate: f64,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// Target = result_weight * game result + (1 - result_weight) *
    /// sigmoid(search score / 200), both from the side to move's view. For a
    /// win/draw/loss network, the loss is result_weight * the cross-entropy
    /// of its three outputs on the result, plus (1 - result_weight) * the
    /// binary cross-entropy of its expected score on the squashed score.
    pub result_weight: f32,
    /// A win/draw/loss output (three logits) instead of one score logit.
    pub wdl: bool,
    /// Share of games (not positions) held out for validation.
    pub validation_fraction: f64,
    /// Stop after this many epochs without a better validation loss.
    pub patience: usize,
    /// Samples held for shuffling; memory is bounded by it, not by the data.
    pub shuffle_buffer: usize,
    /// Add each training position mirrored left-right with probability 1/2
    /// instead of as it is (the rules are symmetric).
    pub mirror: bool,
    /// Leave out the positions before random opening moves.
    pub skip_opening: bool,
    /// Leave out positions where the side to move must capture (the engine
    /// never evaluates those).
    pub skip_forced_captures: bool,
    pub seed: u64,
    /// Endgame tables (a folder built by `alq tb build`; empty: none).
    /// Positions they cover get their exact value as the target (win 1, draw
    /// 0.5, loss 0, side to move's view) instead of the blended result and
    /// search score (wholly with `exact_weight` 1, in part below it).
    pub tablebase: String,
    /// Proven-position stores (as written by `alq label`, the pipeline's
    /// `[label]` stage, `alq oracle --store` or `alq atlas`) whose exact
    /// values are targets as the tables' are. One-sided bounds are not used.
    pub stores: Vec<String>,
    /// How much an exact value (tables or stores) weighs in its position's
    /// target: `exact_weight * exact + (1 - exact_weight) * the usual
    /// target` (for a win/draw/loss network, the same mixture of the exact
    /// class and the result's class, and of the exact value and the
    /// squashed score). 1 (the default) replaces the usual target; 0 uses
    /// no exact value at all.
    pub exact_weight: f32,
    /// Whether exact draws are targets too (the default); without them
    /// only won and lost positions get their exact value, and drawn ones
    /// keep the usual target (the game's result and the search score),
    /// which tells the drawn positions a fallible opponent goes on to lose
    /// from the others.
    pub exact_draws: bool,
    /// The rule set of the games (`brainking` or `classic`): records of other
    /// rules and tables built for other rules are refused, and the network
    /// file names it.
    pub rules: alq_engine::RuleSet,
    /// A network file to start from instead of random weights (e.g.
    /// `data/networks/default.alqnet`; empty: random). Its output, number
    /// of hidden layers and rules must be those of this config; a hidden
    /// width narrower than this config's is widened without changing what
    /// the network computes (new units with zero weights into the old ones,
    /// see `widen`). A lower `learning_rate` suits it.
    pub init: String,
    /// A second head for the exact win/draw/loss value (network file format
    /// 2): trained by cross-entropy on the positions the tables or `stores`
    /// settle (draws included whatever `exact_draws` says), beside the
    /// value head, which keeps its own targets. The search trusts its win
    /// or loss where it is confident (see `confidence_precision`). Set
    /// `exact_weight = 0` to keep the value head wholly practical.
    pub exact_head: bool,
    /// The exact head's loss weight in the total loss.
    pub exact_head_weight: f32,
    /// The precision the exact head's trusted calls must reach on the
    /// validation positions with exact values: the confidence written into
    /// the network is the lowest probability at which its win and loss
    /// calls at least that sure are right this often (1 when none is).
    pub confidence_precision: f64,
    /// A move-policy head (network file format 2) the search orders moves
    /// by: trained by cross-entropy on the moves that keep the exact value
    /// where the tables or `stores` settle every move of a position, and
    /// elsewhere on the searched move the game played (random opening moves
    /// are no targets).
    pub policy_head: bool,
    /// The policy head's loss weight in the total loss.
    pub policy_weight: f32,
    /// The part of a settled position's policy target that goes to the
    /// perfect player's ultra-strong choice among the value-keeping moves
    /// (the keepers after which the largest share of the opponent's replies
    /// is known, by the tables or `stores`, to lose value; ties share it);
    /// the rest is shared equally by every keeper. 0 (the default) trains
    /// on the keepers alone, 1 on the ultra-strong choice alone.
    pub policy_ultra: f32,
    /// Whether the extra heads' losses train the shared hidden layers too
    /// (the default); false fits the heads on the value network's features
    /// as they are, so the value head learns exactly what it would without
    /// them.
    pub heads_shape_trunk: bool,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            hidden: vec![64, 16],
            epochs: 20,
            batch_size: 1024,
            learning_rate: 0.002,
            min_learning_rate: 0.0001,
            weight_decay: 0.0001,
            result_weight: 0.5,
            wdl: false,
            validation_fraction: 0.1,
            patience: 3,
            shuffle_buffer: 200_000,
            mirror: true,
            skip_opening: true,
            skip_forced_captures: true,
            seed: 1,
            tablebase: String::new(),
            stores: Vec::new(),
            exact_weight: 1.0,
            exact_draws: true,
            rules: alq_engine::RuleSet::BrainKing,
            init: String::new(),
            exact_head: false,
            exact_head_weight: 1.0,
            confidence_precision: 0.99,
            policy_head: false,
            policy_weight: 1.0,
            policy_ultra: 0.0,
            heads_shape_trunk: true,
        }
    }
}

impl TrainConfig {
    /// The tables of `tablebase` (none when it is empty), the process-wide
    /// shared copy, refused when built for other rules than `rules`.
    ///
    /// # Errors
    ///
    /// Tables that cannot be opened, or of other rules.
    pub fn tables(&self) -> Result<Option<std::sync::Arc<alq_tablebase::Tablebase>>, alq_tablebase::TbError> {
        match self.tablebase.trim() {
            "" => Ok(None),
            dir => {
                let tb = alq_tablebase::Tablebase::shared(std::path::Path::new(dir))?;
                tb.expect_rules(self.rules)?;
                Ok(Some(tb))
            }
        }
    }

    /// Checks the values; the message names the key.
    pub fn validate(&self) -> Result<(), alq_records::ConfigError> {
        if self.hidden.is_empty() || self.hidden.iter().any(|&w| w == 0 || w > 4096) {
            return Err(alq_records::ConfigError::new("hidden", "one or more widths from 1 to 4096"));
        }
        if self.epochs == 0 {
            return Err(alq_records::ConfigError::new("epochs", "at least 1"));
        }
        if self.batch_size == 0 {
            return Err(alq_records::ConfigError::new("batch_size", "at least 1"));
        }
        if !(self.learning_rate > 0.0 && self.learning_rate <= 1.0) {
            return Err(alq_records::ConfigError::new("learning_rate", "in (0, 1]"));
        }
        if !(self.min_learning_rate >= 0.0 && self.min_learning_rate <= self.learning_rate) {
            return Err(alq_records::ConfigError::new("min_learning_rate", "between 0 and learning_rate"));
        }
        if !(0.0..=1.0).contains(&self.result_weight) {
            return Err(alq_records::ConfigError::new("result_weight", "between 0 and 1"));
        }
        if !(0.0..=1.0).contains(&self.exact_weight) {
            return Err(alq_records::ConfigError::new("exact_weight", "between 0 and 1"));
        }
        if !(self.exact_head_weight >= 0.0 && self.exact_head_weight <= 100.0) {
            return Err(alq_records::ConfigError::new("exact_head_weight", "between 0 and 100"));
        }
        if !(0.0..=1.0).contains(&self.policy_ultra) {
            return Err(alq_records::ConfigError::new("policy_ultra", "between 0 and 1"));
        }
        if !(self.policy_weight >= 0.0 && self.policy_weight <= 100.0) {
            return Err(alq_records::ConfigError::new("policy_weight", "between 0 and 100"));
        }
        if !(self.confidence_precision > 0.5 && self.confidence_precision <= 1.0) {
            return Err(alq_records::ConfigError::new("confidence_precision", "in (0.5, 1]"));
        }
        if let Some(empty) = self.stores.iter().position(|s| s.trim().is_empty()) {
            return Err(alq_records::ConfigError::new(
                "stores",
                format!("entry {} is empty: give a store file", empty + 1),
            ));
        }
        if !(self.validation_fraction > 0.0 && self.validation_fraction < 1.0) {
            return Err(alq_records::ConfigError::new("validation_fraction", "strictly between 0 and 1"));
        }
        if self.shuffle_buffer == 0 {
            return Err(alq_records::ConfigError::new("shuffle_buffer", "at least 1"));
        }
        Ok(())
    }
}
