#!/usr/bin/env bash
# Prints the path of a Python 3.13 interpreter, or explains what to install.
set -u
for candidate in "python3.13" "env PYENV_VERSION=3.13.0 python3.13"; do
  if exe=$($candidate -c 'import sys; assert sys.version_info[:2] == (3, 13); print(sys.executable)' 2>/dev/null); then
    echo "$exe"
    exit 0
  fi
done
echo "error: Python 3.13 not found. Install it (for example 'pyenv install 3.13.0') so that python3.13 is on PATH." >&2
exit 1
