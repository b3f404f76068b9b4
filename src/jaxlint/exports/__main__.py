"""``python -m jaxlint.exports`` runs ``jaxlint exports`` (useful before the main CLI registers it)."""
from jaxlint.exports.cli import exports_command

if __name__ == "__main__":
    exports_command(prog_name="jaxlint exports")
