#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Reference run for relu_net_test: the same network trained by dense numpy code, written from
the PyTorch definitions (nn.Linear, ReLU, MSELoss(mean), optim.Adam), from the initial
parameters and batch orders the test gives, so that the C++ trainer can be compared step by
step. Usage: reference_adam.py IN.json OUT.json"""
import json
import sys

import numpy as np


def unpack(theta, sizes):
    layers, off = [], 0
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        W = np.reshape(theta[off:off + fan_out * fan_in], (fan_out, fan_in), order="F")
        off += fan_out * fan_in
        b = theta[off:off + fan_out]
        off += fan_out
        layers.append((W, b))
    return layers


def loss_grad(theta, sizes, X, y):
    layers = unpack(theta, sizes)
    hs, pres = [X.T], []
    for i, (W, b) in enumerate(layers):
        a = W @ hs[-1] + b[:, None]
        if i + 1 < len(layers):
            pres.append(a)
            hs.append(np.maximum(a, 0.0))
        else:
            out = a[0]
    m = X.shape[0]
    err = out - y
    loss = np.mean(err * err)
    g = (2.0 / m) * err[None, :]
    grads = [None] * len(layers)
    for i in reversed(range(len(layers))):
        W, _ = layers[i]
        grads[i] = (g @ hs[i].T, g.sum(axis=1))
        if i > 0:
            g = (W.T @ g) * (pres[i - 1] > 0.0)
    flat = np.concatenate([np.concatenate([dW.flatten(order="F"), db]) for dW, db in grads])
    return loss, flat


def main():
    cfg = json.load(open(sys.argv[1]))
    sizes = [cfg["inputs"]] + list(cfg["hidden"]) + [1]
    theta = np.array(cfg["theta"], dtype=float)
    X = np.array(cfg["X"], dtype=float)
    y = np.array(cfg["y"], dtype=float)
    lr, b1, b2, eps, bs = cfg["lr"], cfg["beta1"], cfg["beta2"], cfg["eps"], cfg["batch"]
    m1 = np.zeros_like(theta)
    m2 = np.zeros_like(theta)
    t = 0
    last = 0.0
    for perm in cfg["perms"]:
        losses = []
        for start in range(0, len(perm), bs):
            idx = perm[start:start + bs]
            loss, g = loss_grad(theta, sizes, X[idx], y[idx])
            losses.append(loss)
            t += 1
            m1 = b1 * m1 + (1 - b1) * g
            m2 = b2 * m2 + (1 - b2) * g * g
            step = lr / (1 - b1 ** t)
            denom = np.sqrt(m2) / np.sqrt(1 - b2 ** t) + eps
            theta = theta - step * m1 / denom
        last = float(np.mean(losses))
    json.dump({"theta": theta.tolist(), "final_loss": last}, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
