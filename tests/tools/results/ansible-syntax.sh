#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Ansible example (tools/ansible): ansible-playbook --syntax-check on
# the playbook with the example inventory.  Skips when ansible is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$here/../../../tools/ansible
command -v ansible-playbook >/dev/null ||
	{ echo "SKIP: ansible-playbook is not installed (apt-get install ansible)"; exit 77; }
[ -f "$dir/dutlab-fleet.yml" ] || { echo "FAIL: no $dir/dutlab-fleet.yml"; exit 1; }
out=$(ANSIBLE_LOCAL_TEMP=$(mktemp -d) ansible-playbook --syntax-check -i "$dir/inventory.example.ini" \
	"$dir/dutlab-fleet.yml" -e experiment=/dev/null -e results_db=x -e dutlab_repo=x 2>&1) ||
	{ echo "FAIL: ansible-playbook --syntax-check: $out"; exit 1; }
echo "$out"
echo PASS
