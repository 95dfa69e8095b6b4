"""Examples installed with the package; run each as a module:

- ``python -m alquerque_lab.examples.train_value_net``: a small PyTorch value
  network on self-play samples, played through the PettingZoo environment;
- ``python -m alquerque_lab.examples.train_policy_value_net``: a value and
  policy network in numpy alone;
- ``python -m alquerque_lab.examples.engine``: an external engine speaking
  the engine protocol (``alq match --a "engine:python3 -m
  alquerque_lab.examples.engine"``).
"""
