#!/usr/bin/env python3
"""PyTorch twin of the burn trainer's inner loop, for a speed comparison only
(not used by the tests or CI).

Same network (50 -> hidden -> 1, default 64,16, clipped ReLU, sigmoid output, MSE on the
blended target), batch 1,024, AdamW (lr 0.002, weight decay 1e-4, eps 1e-8),
same samples (written by `cargo run --release -p alq-train --example
throughput -- dump GAMES.csv SAMPLES.f32`) and the same thread count.

Usage: scripts/train_pytorch.py SAMPLES.f32 [--threads 2] [--hidden 64,16]
Note: torch.nn.Linear stores its weight as [out, in], the transpose of burn's [in, out].
"""
import argparse
import time

import numpy as np
import torch

INPUTS = 50


class ValueNet(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        sizes = [INPUTS] + hidden + [1]
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.clamp(layer(x), 0.0, 1.0)
        return self.layers[-1](x)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("samples")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--hidden", default="64,16", help="hidden widths, as in configs/train.toml")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    data = np.fromfile(args.samples, dtype="<f4").reshape(-1, INPUTS + 1)
    xs = torch.from_numpy(data[:, :INPUTS].copy())
    ys = torch.from_numpy(data[:, INPUTS:].copy())
    n = len(xs)
    model = ValueNet([int(w) for w in args.hidden.split(",")])
    opt = torch.optim.AdamW(model.parameters(), lr=0.002, weight_decay=1e-4, eps=1e-8)
    for epoch in range(args.epochs):
        start = time.perf_counter()
        total = 0.0
        for i in range(0, n, 1024):
            x, y = xs[i:i + 1024], ys[i:i + 1024]
            loss = torch.mean((torch.sigmoid(model(x)) - y) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(x)
        secs = time.perf_counter() - start
        warm = " (warm-up)" if epoch == 0 else ""
        print(f"pytorch epoch {epoch}: {n} samples in {secs:.2f} s = {n / secs:.0f} samples/s, "
              f"loss {total / n:.5f} ({args.threads} threads){warm}")


if __name__ == "__main__":
    main()
