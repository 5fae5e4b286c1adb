"""One vocabulary across the ``squeeze`` commands: an option shared by several commands means one thing (the README's
table lists each), every option's help shows its default, ``--version``, and a command starts without loading
what it does not need."""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import typer
from typer.testing import CliRunner

from squeeze.robot.cli import app

ROOT = Path(__file__).resolve().parents[1]
CLI = typer.main.get_command(app)
SQUEEZE = [sys.executable, "-m", "squeeze.robot.cli"]


def _options():
    """``{option string: [(command, click parameter)]}`` of every visible option of every command."""
    uses = collections.defaultdict(list)
    for name, command in CLI.commands.items():
        for p in command.params:
            if p.param_type_name == "option" and p.name != "help" and not p.hidden:
                for opt in (*p.opts, *p.secondary_opts):
                    uses[opt].append((name, p))
    return uses


def _readme_table() -> dict[str, set[str]]:
    """The README's table of shared options: ``{option string: {commands}}``."""
    text = (ROOT / "README.md").read_text()
    lines = text.split("### Options shared by several commands", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    table: dict[str, set[str]] = {}
    for line in lines[start:end]:
        if not line.startswith("| `"):
            continue
        first, commands, _meaning = (cell.strip() for cell in line.strip("|").split("|"))
        for opt in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", first):
            table[opt] = {c.strip() for c in commands.split(",")}
    return table


def test_every_shared_option_is_in_the_readme_table_with_its_commands():
    shared = {opt: {name for name, _ in uses} for opt, uses in _options().items() if len(uses) > 1}
    table = _readme_table()
    assert set(shared) <= set(table), f"not in the README's table: {sorted(set(shared) - set(table))}"
    for opt, commands in table.items():
        assert opt in shared, f"the README's table lists {opt}, which is not shared by several commands"
        assert commands == shared[opt], (opt, commands, shared[opt])


def test_a_shared_option_has_one_type_and_one_long_name():
    for opt, uses in _options().items():
        kinds = {str(p.type_descriptor.annotation).replace("typing.Optional[", "").rstrip("]") for _, p in uses}
        assert len(kinds) == 1, (opt, kinds)
        if opt.startswith("-") and not opt.startswith("--"):  # a short name stands for the same long name
            longs = {next(o for o in p.opts if o.startswith("--")) for _, p in uses}
            assert len(longs) == 1, (opt, longs)
    assert "-b" not in {o for _, p in _options()["--board"] for o in p.opts}  # -b is team B, never a board


def test_strict_means_stop_at_the_first_error_and_boards_is_a_count():
    for _, p in _options()["--strict"]:
        assert "Stop at the first" in p.help, p.help
    for name, p in _options()["--boards"]:
        assert p.metavar == "N", name
    assert "--boards-file" in {o for _, p in _options()["--boards-file"] for o in p.opts}
    assert "--compliance-report" in _options() and all(n in ("pbn", "selfplay", "tournament") for n, _ in
                                                       _options()["--strict"])


def test_every_option_that_takes_a_value_shows_its_default():
    missing = []
    for name, command in CLI.commands.items():
        for p in command.params:
            if p.param_type_name != "option" or p.name == "help" or p.hidden or p.required:
                continue
            if getattr(p, "is_flag", False) and not p.secondary_opts:
                continue  # an on/off switch (off unless given)
            shown = (p.show_default is not False and p.default is not None) or "[default:" in (p.help or "")
            if not shown:
                missing.append(f"squeeze {name} {p.opts[0]}")
    assert not missing, missing
    # as a user sees it: the settings' default, read from the settings models, in the rendered help
    r = CliRunner().invoke(app, ["selfplay", "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0
    assert re.search(r"--boards.*\[default: 100\]", r.stdout) and re.search(r"--chunk.*\[default: 4\]", r.stdout)
    r = CliRunner().invoke(app, ["deal", "--help"], env={"COLUMNS": "200"})
    assert re.search(r"--worlds.*\[default: 20\]", r.stdout) and re.search(r"--inference.*\[default: --no-inference\]",
                                                                            r.stdout)


def test_every_settings_flag_s_help_is_its_settings_field_s_description():
    """One text per key: a flag's help is the description its settings field holds (the TOML file's comment
    says the same), then the default; the map from flags to settings is the CLI's own (``_FLAG_GROUPS``)."""
    from squeeze.config.settings import Settings
    from squeeze.robot.cli import _FLAG_GROUPS, _command_name

    flags_of = {_command_name(c): getattr(c.callback, "_flags", ()) for c in app.registered_commands}
    checked = set()
    for name, command in CLI.commands.items():
        for p in command.params:
            if p.name not in flags_of[name]:
                continue  # (a command's own option, no settings key)
            section, prefix = next((section, prefix) for section, flags, prefix in _FLAG_GROUPS if p.name in flags)
            field = Settings.model_fields[section].annotation.model_fields[p.name.removeprefix(prefix)]
            assert field.description, f"[{section}] {p.name.removeprefix(prefix)} has no description"
            text, marker, default = (p.help or "").rpartition(" \\[default: ")
            assert marker and default.endswith("]"), (name, p.opts[0], p.help)
            assert text == field.description, (name, p.opts[0], text, field.description)
            checked.add(p.name)
    assert checked == {key for _, flags, _ in _FLAG_GROUPS for key in flags}  # every settings flag is in a command
    # as a user sees it
    r = CliRunner().invoke(app, ["tm", "--help"], env={"COLUMNS": "300"})
    assert r.exit_code == 0
    assert re.search(r"--card-limit +<float> +A seat thinking longer than this over one card meets its time fate\. "
                     r"\[default: 60\]", r.stdout), r.stdout


def test_version():
    r = subprocess.run(SQUEEZE + ["--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == f"squeeze {version('squeeze-bridge')}"


def test_a_command_imports_only_what_it_needs():
    """``squeeze score --help`` and ``squeeze --help`` load neither the engine's search, nor the settings, nor
    structlog (every command loaded them all: about 1.2 s of CPU before doing anything)."""
    probe = ("import sys\nfrom squeeze.robot.cli import app\n"
             "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "heavy = [m for m in ('squeeze.config.settings', 'squeeze.engine.play.card_player', 'numpy', "
             "'structlog', 'squeeze.engine.bidding', 'pydantic_settings') if m in sys.modules]\n"
             "print('HEAVY', heavy)\n")
    for args in (["score", "--help"], ["--help"], ["score", "4HX", "S", "10"]):
        r = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "HEAVY []" in r.stdout, (args, r.stdout[-300:])
    # and a command's own help still has every option (only the command run is built in full)
    r = subprocess.run(SQUEEZE + ["tm", "--help"], capture_output=True, text=True, timeout=60,
                       env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    assert "--boards-file" in r.stdout and "--compliance-report" in r.stdout and "[default: 8]" in r.stdout
