"""Shared fixtures: the repository's paths and the `mentor-context` command to compare with.

The command is the one built from this checkout (`cargo build --release -p
mentor-context-cli`); set MENTOR_CONTEXT_BIN to use another build. It is built here once if
it is missing, so `pytest` alone works on a fresh clone.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

# The request fixtures: JSON arrays of results in the .NET wire form.
RESULT_FIXTURES = sorted(
    [p for p in FIXTURES.glob("*.json")]
    + [FIXTURES / "conversation" / f"turn-{n}.json" for n in (1, 2, 3)]
    + [FIXTURES / "dotnet" / name for name in ("mixed-case.json", "null-metadata.json",
                                               "pascal-case.json", "string-scores.json",
                                               "unknown-properties.json")]
)


def as_the_command_reads(fixture: Path, tmp_path: Path) -> Path:
    """The fixture as the command reads what Python reads from its dicts: a dict's
    `source_url` is `sourceUrl` to Python (the JSON wire form knows only `sourceUrl`)."""
    text = fixture.read_text()
    if '"source_url"' not in text:
        return fixture
    renamed = tmp_path / fixture.name
    renamed.write_text(text.replace('"source_url"', '"sourceUrl"'))
    return renamed


@pytest.fixture(scope="session")
def cli() -> Path:
    """The path of the `mentor-context` binary."""
    given = os.environ.get("MENTOR_CONTEXT_BIN")
    if given:
        return Path(given)
    binary = ROOT / "target" / "release" / "mentor-context"
    if not binary.exists():
        subprocess.run(
            ["cargo", "build", "--release", "-p", "mentor-context-cli"], cwd=ROOT, check=True
        )
    return binary


def run_cli(cli: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Runs the command and returns what it did, whatever its exit code."""
    return subprocess.run(
        [str(cli), *args], input=stdin, capture_output=True, text=True, check=False
    )


def cli_report(cli: Path, args: list[str], fixture: Path) -> str:
    """The stdout of `assemble --json` with `args` on `fixture`, which must succeed."""
    done = run_cli(cli, "assemble", "--json", *args, str(fixture))
    assert done.returncode == 0, done.stderr
    return done.stdout


def cli_failure(cli: Path, args: list[str], fixture: Path | None = None) -> tuple[str, str]:
    """The code and the one-line message of a failing `assemble`, without the program's name:
    `mentor-context: error[CODE]: message`."""
    done = run_cli(cli, "assemble", *args, str(fixture or FIXTURES / "pricing.json"))
    assert done.returncode == 2, (done.returncode, done.stdout)
    line = done.stderr.strip()
    assert "\n" not in line, line
    prefix = "mentor-context: error["
    assert line.startswith(prefix), line
    code, message = line[len(prefix):].split("]: ", 1)
    return code, message


def cli_error(cli: Path, args: list[str], fixture: Path | None = None) -> str:
    """The one-line message of a failing `assemble`, without the program's name and code."""
    return cli_failure(cli, args, fixture)[1]


def load(fixture: Path):
    return json.loads(fixture.read_text(encoding="utf-8"))
