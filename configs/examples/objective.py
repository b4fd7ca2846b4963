#!/usr/bin/env python3
"""Example objective for configs/examples/external_command.toml.

Reads {"id": N, "params": {...}} on stdin, prints {"objective": f, "constraints": {...}}.
"""
import json
import math
import sys

point = json.load(sys.stdin)["params"]
x, layers = point["x"], point["layers"]
penalty = 0.0 if point["optimizer"] == "adam" else abs(math.log10(point["lr"]) + 2.0)
objective = (x - 1.0) ** 2 + 0.3 * (layers - 3) ** 2 + penalty
print(json.dumps({"objective": objective, "constraints": {"cost": 4.0 * layers + x}}))
