#!/usr/bin/env python3
"""Writes the starting inputs of each harness, taken from the test suite and configs/, into
DIR/<harness>/ (default: a temporary folder it prints). The committed corpora in corpus/ grew
from these; run it again to start a corpus afresh (see README.md)."""
import glob
import hashlib
import os
import re
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))


def cpp_strings(path):
    """Raw string literals R"(...)" / R"x(...)x" and ordinary "..." literals of a C++ file."""
    text = open(path, encoding='utf-8').read()
    out = [m.group(2) for m in re.finditer(r'R"([^(\s]*)\((.*?)\)\1"', text, re.S)]
    for m in re.finditer(r'(?<![R\w])"((?:[^"\\\n]|\\.)*)"', text):
        try:
            out.append(bytes(m.group(1), 'utf-8').decode('unicode_escape'))
        except UnicodeDecodeError:
            pass
    return out


def write(dir_, items):
    os.makedirs(dir_, exist_ok=True)
    for item in items:
        data = item.encode('utf-8', 'surrogatepass') if isinstance(item, str) else item
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(dir_, name), 'wb') as f:
            f.write(data)


def src(*parts):
    return sorted(glob.glob(os.path.join(ROOT, *parts)))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix='arbo_fuzz_seeds.')
    tomls = [open(p, encoding='utf-8').read()
             for p in src('configs', '*.toml') + src('configs', '*', '*.toml') +
             src('tests', 'config', 'invalid', '*.toml') + src('bench', 'pipelines', '*.toml')]
    sets = ['study.budget=40', 'study.seed=7', "problem.plugin='\"g6_reduced\"'",
            'surrogate.trees=[1, 2]', 'study.time_limit=1e3', 'inner_solver.x={a = 1}']
    pipeline = tomls + [t + '\n#--set\n' + s for t, s in zip(tomls, sets * len(tomls))]
    pipeline += [s for p in src('tests', 'config', '*.cpp') for s in cpp_strings(p)
                 if '[' in s and '=' in s]
    write(os.path.join(out, 'pipeline'), pipeline)

    lp = [s for p in src('tests', 'model_io', '*.cpp') for s in cpp_strings(p)
          if re.search(r'(?i)minimi|maximi|subject|bounds', s)]
    write(os.path.join(out, 'lp'), lp)

    expression = [s for p in src('plugins', 'constraints', '*', 'tests', '*.cpp') +
                  src('tests', 'e2e', '*.cpp')
                  for s in cpp_strings(p) if re.search(r'<=|>=|==', s) and len(s) < 400]
    write(os.path.join(out, 'expression'), expression)

    output = [s for p in src('tests', 'engine', 'evaluator_test.cpp') + src('tests', 'e2e', '*.cpp')
              for s in cpp_strings(p) if 'objective' in s or re.fullmatch(r'\s*-?[\d.eE+-]+\s*', s)]
    output += ['1.5', '{"objective": NaN}', '{"objective": 1, "constraints": {"acc": 0.95, '
               '"mem": 3}}', '{"error": "diverged"}', 'log line\n{"objective": -Infinity}\n']
    write(os.path.join(out, 'output'), output)

    problem_eval = [
        '{"x1": 0.5, "x2": 0.3, "z1": "A", "z2": "B"}\n',
        '{"id": 7, "params": {"x1": 1, "x2": 0, "z1": "B", "z2": "A"}}\n',
        '{"x0": 10, "x1": 5, "x2": 50.5, "x3": 120}\n{"params": {"x0": 99, "x1": 1, "x2": 10, '
        '"x3": 200}}\n',
        'not json\n{"id": "a"}\n[1, 2]\n{"x1": "0.5", "z1": 3}\n',
    ]
    problem_eval += [s + '\n' for p in src('tests', 'bench', '*.cpp') + src('tests', 'e2e', '*.cpp')
                     for s in cpp_strings(p) if s.startswith('{') and 'params' in s]
    write(os.path.join(out, 'problem_eval'), problem_eval)
    print(out)


if __name__ == '__main__':
    main()
