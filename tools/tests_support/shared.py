# SPDX-License-Identifier: GPL-2.0
"""What several rbtilib test modules use: the fuzz configuration of the
fuzzer's tests and a run of the fuzzer, a fault for the fake module, and a run of rbti's command
line.  (rbti's command line is tested through rbtilib.cli, not by loading
the tools/rbti shim.)"""

from rbtilib import cli, fuzz, fuzzconfig
from rbtilib.treerun import default_model
from tests_support.trees import CONTRACT_TREES

INFO = {info.name: info for info in CONTRACT_TREES}


def config(**kw) -> fuzzconfig.Config:
    """A fuzz Config: the plain uniform mix (no phases, no single-op
    files) unless asked."""
    base = dict(ops=3000, seed=7, check_every=500, keys=(0, 40),
                progress=0, shrink_tests=2000, key_mode="dense",
                phases=False, single=0)
    base.update(kw)
    return fuzzconfig.Config(**base)


def fuzz_run(driver, cfg, names=None, model=default_model, tmp_path=None,
             writers=None):
    """A Fuzzer of *names* (every tree of *driver* if None) on *driver*:
    (the fuzzer, its failure or None)."""
    infos = [INFO[n] for n in names] if names else driver.trees()
    if tmp_path is not None:
        cfg.out = str(tmp_path)
    f = fuzz.Fuzzer(driver, infos, cfg, model, log=None, writers=writers)
    return f, f.run()


def off_by_one_near(tree, op, key, line):
    """A FakeDebugfs fault: every ``near`` reply one key too high."""
    if op == "n" and line.startswith("near "):
        nid, found = line.split()[1:]
        return f"near {nid} {int(found) + 1}"
    return line



def run(argv, driver, capsys):
    """rbti *argv* on *driver*: (exit status, stdout, stderr)."""
    try:
        status = cli.main(argv, driver)
    except SystemExit as e:         # argparse: --help, --version, usage
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err
