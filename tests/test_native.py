"""The compiled copy's runner (tools/native.py): it runs only a copy built from today's
sources, and that copy comes first, even from a checkout. (Building one takes minutes and a
C compiler: `python tools/native.py build` checks its own result against the digests.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import native

from p2pnerts.fanout import source_hash


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the compiled copy would be, empty."""
    monkeypatch.setattr(native, "NATIVE", tmp_path)
    monkeypatch.setattr(native, "STAMP", tmp_path / "native.json")
    return tmp_path


def test_nothing_built_is_said_and_nothing_runs(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert native.run(["--version"]) == 2
    assert "nothing is built" in capsys.readouterr().err


def test_a_copy_of_other_sources_is_refused(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (copy / "native.json").write_text(json.dumps({"source": "0" * 16}))
    assert native.run(["--version"]) == 2
    assert "other sources" in capsys.readouterr().err


def test_the_copy_runs_first_even_from_the_checkout_that_holds_the_pure_package(
    copy: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (copy / "native.json").write_text(json.dumps({"source": source_hash()}))
    package = copy / "p2pnerts"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("print('the copy ran')\n")
    monkeypatch.chdir(native.ROOT)  # where ./p2pnerts is the pure package
    assert native.run([]) == 0
    assert "the copy ran" in capfd.readouterr().out


def test_mypyc_reads_the_checkouts_own_mypy_settings() -> None:
    ini = native._mypy_ini()
    assert ini.startswith("[mypy]\nstrict = True\n")
    assert (
        "[mypy-msgpack,msgpack.*,distributed,distributed.*,noise,noise.*,spake2,spake2.*]\n"
        "ignore_missing_imports = True" in ini
    )
