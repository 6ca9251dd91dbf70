"""The output files as bench declares them (`bench list --output-files --json`), for the scripts that
copy rows or columns of them: the scripts read the columns from here, never from a list of their own."""
import json
import subprocess
import sys


def output_files(bench, tool):
    """Every output file by name: its columns, key and figures. `tool` names the script in an error."""
    listing = subprocess.run([bench, "list", "--output-files", "--json"], capture_output=True, text=True)
    if listing.returncode != 0:
        sys.exit(f"{tool}: {bench} list --output-files --json exited {listing.returncode}: {listing.stderr}")
    return {entry["name"]: entry for entry in json.loads(listing.stdout)}
