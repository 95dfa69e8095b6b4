//! A network player's `heads=` setting.

use std::sync::Arc;

use alq_engine::{Heads, Layer, Limits, Network, EXACT_OUTPUTS, POLICY_OUTPUTS};
use alq_play::players::{EvalSpec, PlayerKind, PlayerSpec};

fn network_of(spec: &PlayerSpec) -> Arc<Network> {
    match &spec.kind {
        PlayerKind::Search(EvalSpec::Network(net)) => net.clone(),
        other => panic!("not a network player: {other:?}"),
    }
}

#[test]
fn a_network_player_uses_the_heads_it_is_told_to() {
    let d = Limits::nodes(100);
    // A network with both extra heads, in a file.
    let mut net = Network::zeros(&[8, 4]);
    net.heads = Heads {
        exact: Some(Layer::zeros(4, EXACT_OUTPUTS)),
        confidence: 0.9,
        policy: Some(Layer::zeros(4, POLICY_OUTPUTS)),
    };
    let dir = std::env::temp_dir().join(format!("alq-play-heads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("two-heads.alqnet");
    std::fs::write(&path, net.to_bytes()).unwrap();
    let file = path.display().to_string();

    let all = network_of(&PlayerSpec::parse(&format!("{file}@nodes=50"), d).unwrap());
    assert_eq!(*all, net);
    let same = network_of(&PlayerSpec::parse(&format!("{file}@heads=all"), d).unwrap());
    assert_eq!(*same, net);
    let policy = network_of(&PlayerSpec::parse(&format!("{file}@heads=policy,nodes=50"), d).unwrap());
    assert!(policy.heads.exact.is_none() && policy.heads.policy.is_some());
    let exact = network_of(&PlayerSpec::parse(&format!("{file}@heads=exact"), d).unwrap());
    assert!(exact.heads.exact.is_some() && exact.heads.policy.is_none());
    let value = network_of(&PlayerSpec::parse(&format!("{file}@heads=value"), d).unwrap());
    assert!(value.heads.is_empty());
    assert_eq!(value.layers, net.layers);
    // Each plays under its own id.
    let ids: std::collections::HashSet<String> = [&all, &policy, &exact, &value].iter().map(|n| n.id()).collect();
    assert_eq!(ids.len(), 4);
    // The shipped network has no heads: every choice is the same network.
    let shipped = network_of(&PlayerSpec::parse("nn@heads=value", d).unwrap());
    assert_eq!(*shipped, *alq_engine::default_network().unwrap());

    for (bad, problem) in [
        ("nn@heads=both", "expected all, exact, policy or value"),
        (&format!("{file}@depth=3,colour=red"), "only setting is heads="),
        ("nn@hash=8,width=9", "only setting is heads="),
    ] {
        let err = PlayerSpec::parse(bad, d).unwrap_err().to_string();
        assert!(err.contains(problem), "{bad}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
