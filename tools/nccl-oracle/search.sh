#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# NCCL's own graph search as an oracle for gdrlab's channel search (README.md).
#   tools/nccl-oracle/search.sh GDRLAB NCCL_GIT [RELEASES]
# GDRLAB    the built gdrlab binary (build/cli/gdrlab)
# NCCL_GIT  a git directory of NVIDIA/nccl with the release tags (bare is fine)
# RELEASES  comma list of 2.8.4,2.12.12,2.19.3,2.21.5,2.30.7 (default: all)
# Environment: CUDA_HOME (/usr/local/cuda), KEEP=1 (keep the work folder),
# ENGINE_LIB (libgdrlab_engine.a; default beside GDRLAB: ../engine/),
# NODES (comma list, 2,3), JOBS (cases run at once; default the CPUs),
# PXN=off (NCCL_PXN_DISABLE=1 for NCCL, --pxn off for gdrlab), P2P=LEVEL
# (NCCL_P2P_LEVEL for NCCL and engine_graphs.c, --p2p-level for gdrlab; its
# differences are not in search_known.txt, which holds the defaults').
# Exit: 0 every difference is in search_known.txt, 1 another difference or a
# failed case, 2 a missing tool or bad argument.
set -euo pipefail

die() { echo "search-oracle: $*" >&2; exit 2; }

case ${1:-} in -h | --help) sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
if [ $# -lt 2 ] || [ $# -gt 3 ]; then die "usage: $0 GDRLAB NCCL_GIT [RELEASES]"; fi
gdrlab=$1
nccl_git=$2
releases=${3:-2.8.4,2.12.12,2.19.3,2.21.5,2.30.7}
IFS=, read -ra nodes <<<"${NODES:-2,3}"
pxn=${PXN:-on}
case $pxn in on) pxn_env= ;; off) pxn_env=NCCL_PXN_DISABLE=1 ;; *) die "PXN: on or off, not '$pxn'" ;; esac
p2p=${P2P:-}
case $p2p in '' | LOC | NVL | NVB | PIX | PXB | PHB | SYS) ;; *) die "P2P: one of NCCL's level names (LOC ... SYS), not '$p2p'" ;; esac
p2p_env=${p2p:+NCCL_P2P_LEVEL=$p2p}
[ -z "$p2p" ] || known_file= # every difference counts

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
known_file=${known_file-$here/search_known.txt}

# shellcheck source-path=SCRIPTDIR source=common.sh
. "$here/common.sh"
setup_oracle nccl-search
read_releases
for n in "${nodes[@]}"; do
	if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 2 ]; then die "NODES: $n (2 or more: the search needs a network)"; fi
done

# The tag's unmodified topo.cc, paths.cc, search.cc and xml.cc with search.cc
# of this folder. --gc-sections for every tag: ncclTopoGetSystem and the
# other entry points the harness does not call need CUDA, NVML and the rest
# of NCCL; dropped, what remains links against the harness's stubs.
# shellcheck disable=SC2317  # called by build_all
build_search() {
	local tag=$1 t=$work/$1 std inc pre ld f objs=()
	export_tag "$tag" "$t"
	tag_flags "$t"
	pre+=(-ffunction-sections -fdata-sections)
	ld=("-Wl,--gc-sections")
	# shellcheck disable=SC2086  # $cuda_def is two words
	{
		for f in topo paths search xml; do
			g++ $std -O1 $cuda_def "${pre[@]}" "${inc[@]}" -c "$t/src/graph/$f.cc" -o "$t/$f.o" || exit 1
			objs+=("$t/$f.o")
		done
		g++ $std -O1 $cuda_def "${pre[@]}" "${inc[@]}" -c "$here/search.cc" -o "$t/harness.o" &&
			g++ "${ld[@]}" -o "$work/search-$tag" "$t/harness.o" "${objs[@]}" -ldl -lpthread
	} >"$t/build.log" 2>&1 || { cat "$t/build.log" >&2; die "building the search oracle of $tag failed"; }
}

start=$SECONDS
build_all build_search topo_xml.c topo-xml
build_helper engine_graphs.c engine-graphs
echo "built ${#rels[@]} search oracles in $((SECONDS - start)) s ($work)"

# NCCL reads its parameters from the environment: none of the caller's.
while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep '^NCCL_' || true)

# What is searched: each preset topo-xml writes (multi-GPU, with NICs,
# written faithfully) as a whole node, "NAME|FILE|", and each preset's last
# GPU alone, "NAME~gK|FILE|K": the communicator of a data-parallel group of
# one GPU a node, whose XML holds that GPU only (topo_xml.c).
mkdir -p "$work/xml" "$work/out"
presets=()
subjects=()
skipped=()
for f in "$repo"/configs/*.yaml "$repo"/configs/validation/*.yaml; do
	p=$(basename "$f" .yaml)
	rc=0
	"$work/topo-xml" "$f" >"$work/xml/$p.xml" 2>"$work/xml/$p.err" || rc=$?
	if [ "$rc" = 0 ]; then
		presets+=("$f")
		subjects+=("$p|$f|")
		grep '^note:' "$work/xml/$p.err" | sed "s/^note: /  note: $p: /" || true
	elif [ "$rc" = 3 ]; then
		skipped+=("$p ($(sed -n 's/^skip: //p' "$work/xml/$p.err"))")
	else
		cat "$work/xml/$p.err" >&2
		die "topo-xml failed on $f"
	fi
	rc=0
	"$work/topo-xml" "$f" last >"$work/xml/$p.one.xml" 2>"$work/xml/$p.one.err" || rc=$?
	if [ "$rc" = 0 ]; then
		g=$(sed -n 's/^gpu: //p' "$work/xml/$p.one.err")
		mv "$work/xml/$p.one.xml" "$work/xml/$p~g$g.xml"
		subjects+=("$p~g$g|$f|$g")
	elif [ "$rc" != 3 ]; then
		cat "$work/xml/$p.one.err" >&2
		die "topo-xml failed on $f, one GPU"
	fi
done

# One case: NCCL's graphs and gdrlab's, as lines "GRAPH NCH BWINTRA BWINTER
# INTRA INTER PATTERN". NCCL's ring has the communicator's channels, the
# fewer of ring and tree, as gdrlab reports them (channels.c, init.cc);
# INTRA is NVL or PCI on both sides (gdrlab's JSON tells no more). The NVLS
# graph is searched where gdrlab has one (the preset's NVSwitch reduces;
# nothing in NCCL's XML says so) and the release has the pattern (2.17+).
# A subject of one GPU takes gdrlab's graphs from engine-graphs (busbw runs
# whole nodes), searched as the tuner searches a group of one GPU a node.
run_case() {
	local rel=$1 subject=$2 n=$3 p f gpu o nvls=
	IFS='|' read -r p f gpu <<<"$subject"
	o=$work/out/$rel-$p-$n
	if ! "$gdrlab" busbw -t "$f" -n "$n" --nccl "$rel" -b 8 -e 8 --pxn "$pxn" ${p2p:+--p2p-level "$p2p"} --json - \
		>"$o.json" 2>"$o.err"; then
		echo "FAILED gdrlab: $(tail -1 "$o.err")" >"$o.gdrlab"
	else
		# whole nodes: busbw's graphs into $o.gdrlab; either way its GDR
		# level and PXN (as plan_uses_pxn decides), which each channel's
		# NICs and GPUs are searched with below
		read -r gdr pxn_on < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
if sys.argv[2]:
    with open(sys.argv[2], "w") as out:
        for k in ("ring", "tree", "nvls"):
            x = d["graphs"][k]
            if x:
                print(k, x["channels"], "%g" % x["bw_intra_gbps"], "%g" % x["bw_inter_gbps"],
                      x["intra"], x["inter"], x["pattern"], file=out)
print(d["gdr_level"], 1 if d["pxn"] and not d["path"].startswith("staged") else 0)' \
			"$o.json" "$([ -n "$gpu" ] || echo "$o.gdrlab")")
		grep -qs '^nvls ' "$o.gdrlab" && nvls=ORACLE_NVLS=1
		if [ -n "$gpu" ]; then
			env ${p2p_env:+"$p2p_env"} "$work/engine-graphs" "$f" "$rel" "$n" "$gdr" "$pxn_on" graphs "$gpu" >"$o.gdrlab" 2>&1 ||
				echo "FAILED engine-graphs: $(tail -1 "$o.gdrlab")" >"$o.gdrlab"
		fi
		# shellcheck disable=SC2086  # $gpu: one word or none
		env ${p2p_env:+"$p2p_env"} "$work/engine-graphs" "$f" "$rel" "$n" "$gdr" "$pxn_on" channels $gpu >"$o.gdrlab.ch" 2>&1 ||
			echo "FAILED engine-graphs" >"$o.gdrlab.ch"
	fi
	if ! env ${pxn_env:+"$pxn_env"} ${p2p_env:+"$p2p_env"} ${nvls:+"$nvls"} ORACLE_GRAPHS=1 timeout 300 \
		"$work/search-v$rel-1" "$work/xml/$p.xml" "$n" >"$o.raw" 2>"$o.nccl.err"; then
		echo "FAILED NCCL: $(tail -1 "$o.nccl.err")" >"$o.nccl"
	else
		grep -E '^(ring|tree) +[0-9]+: NET' "$o.nccl.err" >"$o.nccl.ch" || true
		awk '$1 == "comm" { comm = $2 }
		     $1 == "ring" || $1 == "tree" || $1 == "nvls" { for (i = 1; i <= 7; i++) g[$1, i] = $i }
		     END { for (k = 0; k < 3; k++) {
				name = k == 0 ? "ring" : k == 1 ? "tree" : "nvls"
				if (!((name, 1) in g)) continue
				nch = name == "ring" ? comm : g[name, 2]
				intra = (g[name, 5] == "NVL" || g[name, 5] == "NVB") ? "NVL" : "PCI"
				print name, nch, g[name, 3], g[name, 4], intra, g[name, 6], g[name, 7] } }' \
			"$o.raw" >"$o.nccl"
	fi
}

jobs_max=${JOBS:-$(nproc 2>/dev/null || echo 2)}
for rel in "${rels[@]}"; do
	for subject in "${subjects[@]}"; do
		for n in "${nodes[@]}"; do
			while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
			run_case "$rel" "$subject" "$n" &
		done
	done
done
wait

# Known differences: "RELEASE PRESET NODES GRAPH reason", the first four
# fields shell patterns.
known_reason() {
	local rel pat_p pat_n pat_g reason
	[ -f "$known_file" ] || return 1
	while read -r rel pat_p pat_n pat_g reason; do
		case $rel in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2053  # the fields are patterns
		if [[ $1 == $rel && $2 == $pat_p && $3 == $pat_n && $4 == $pat_g ]]; then
			echo "$rel $pat_p $pat_n $pat_g|$reason"
			return 0
		fi
	done <"$known_file"
	return 1
}

fields=(graph channels bwIntra bwInter intra typeInter pattern)
ncases=0 ngraphs=0 nequal=0 nknown=0 nnew=0 nfailed=0
used_known=()
table=$work/table.txt
: >"$table"
for rel in "${rels[@]}"; do
	for subject in "${subjects[@]}"; do
		p=${subject%%|*}
		for n in "${nodes[@]}"; do
			o=$work/out/$rel-$p-$n
			ncases=$((ncases + 1))
			if grep -q '^FAILED' "$o.nccl" "$o.gdrlab"; then
				nfailed=$((nfailed + 1))
				printf '%-8s %-22s %s  FAILED %s\n' "$rel" "$p" "$n" \
					"$(cat "$o.nccl" "$o.gdrlab" | grep '^FAILED' | tr '\n' ' ')" >>"$table"
				continue
			fi
			for g in ring tree nvls; do
				grep -q "^$g " "$o.gdrlab" || continue
				read -ra a <<<"$(grep "^$g " "$o.nccl")"
				read -ra b <<<"$(grep "^$g " "$o.gdrlab")"
				ngraphs=$((ngraphs + 1))
				diff=()
				for i in 1 2 3 4 5 6; do
					[ "${a[$i]}" = "${b[$i]}" ] || diff+=("${fields[$i]}")
				done
				if [ ${#diff[@]} = 0 ]; then
					nequal=$((nequal + 1))
					continue
				fi
				if k=$(known_reason "$rel" "$p" "$n" "$g"); then
					nknown=$((nknown + 1))
					used_known+=("${k%%|*}")
					tag="known: ${k#*|}"
				else
					nnew=$((nnew + 1))
					tag=NEW
				fi
				printf '%-8s %-22s %s  %-4s  %-30s %-30s %-18s %s\n' "$rel" "$p" "$n" "$g" \
					"${a[*]:1}" "${b[*]:1}" "$(
						IFS=,
						echo "${diff[*]}"
					)" "$tag" >>"$table"
			done
		done
	done
done

# Each graph channel's way, NCCL's against gdrlab's (engine_graphs.c
# channels): the NICs it enters and leaves by, which bind the network and
# its PCIe, and the GPUs it enters and leaves by. Over the channels both
# have (NCCL's ring graph may have more than the communicator takes). A
# ring's GPUs between are not compared: on an NVSwitch their order costs
# nothing, and NCCL's differs by release; a tree's whole chain is counted
# (its second GPU takes a child's connection: channels_tree_chain).
chtable=$work/channels.txt
read -r nch nnic ngpu ntree nchain < <(python3 - "$work/out" "$chtable" <<'PY'
import glob, os, re, sys
out, table = sys.argv[1], sys.argv[2]
pat = re.compile(r"^(ring|tree) +(\d+): NET (-?\d+) -> ([\d ]+) -> NET (-?\d+)")
def read(path):
    g = {}
    if not os.path.exists(path):
        return g
    for line in open(path):
        m = pat.match(line)
        if m:
            gpus = m.group(4).split()
            g[(m.group(1), int(m.group(2)))] = (m.group(3), m.group(5), gpus[0], gpus[-1], line.split(":", 1)[1].strip(), gpus)
    return g
n = nic = gpu = trees = chains = 0
with open(table, "w") as t:
    for ch in sorted(glob.glob(os.path.join(out, "*.nccl.ch"))):
        case = os.path.basename(ch)[:-len(".nccl.ch")]
        a, b = read(ch), read(os.path.join(out, case + ".gdrlab.ch"))
        for k in sorted(set(a) & set(b)):
            n += 1
            same_nic = a[k][:2] == b[k][:2]
            same_gpu = a[k][2:4] == b[k][2:4]
            nic += same_nic
            gpu += same_gpu
            if k[0] == "tree":
                trees += 1
                chains += a[k][5] == b[k][5]
            if not same_nic:
                rel, rest = case.split("-", 1)
                preset, nodes = rest.rsplit("-", 1)
                t.write("%s %s %s %s %d|NCCL %s, gdrlab %s\n" % (rel, preset, nodes, k[0], k[1],
                                                               a[k][4], b[k][4]))
print(n, nic, gpu, trees, chains)
PY
)

# A channel whose NICs differ is known where search_known.txt has its
# graph as GRAPH-nics ("ring-nics"): shown a line a case; a new one a line
# a channel.
nchnew=0
declare -A chknown=()
while IFS='|' read -r key what; do
	read -r rel p n g c <<<"$key"
	if k=$(known_reason "$rel" "$p" "$n" "$g-nics"); then
		used_known+=("${k%%|*}")
		chknown["$rel $p $n $g|${k#*|}"]=$((${chknown["$rel $p $n $g|${k#*|}"]:-0} + 1))
	else
		nchnew=$((nchnew + 1))
		printf '  %-8s %-22s %s  %s %2s  %s  NEW\n' "$rel" "$p" "$n" "$g" "$c" "$what"
	fi
done < <(sort -V "$chtable") >"$chtable.shown"
for k in "${!chknown[@]}"; do
	read -r rel p n g <<<"${k%%|*}"
	printf '  %-8s %-22s %s  %s  %s channels  known: %s\n' "$rel" "$p" "$n" "$g" "${chknown[$k]}" "${k#*|}"
done | sort -V >>"$chtable.shown"

if [ -s "$table" ]; then
	echo
	echo "differences (graph: channels bwIntra bwInter intra typeInter pattern; the ring's channels are the communicator's):"
	printf '%-8s %-22s %s  %-4s  %-30s %-30s %-18s %s\n' release preset n graph NCCL gdrlab differ why
	cat "$table"
fi
# Known differences that did not occur: stale entries, shown, not failed.
if [ -f "$known_file" ]; then
	while read -r rel pat_p pat_n pat_g _; do
		case $rel in '' | '#'*) continue ;; esac
		seen=0
		for u in "${used_known[@]+"${used_known[@]}"}"; do
			[ "$u" = "$rel $pat_p $pat_n $pat_g" ] && seen=1
		done
		[ "$seen" = 1 ] || echo "  note: known difference not seen: $rel $pat_p $pat_n $pat_g"
	done <"$known_file"
fi
echo
echo "presets:  ${#presets[@]} compared whole, $((${#subjects[@]} - ${#presets[@]})) as one GPU alone; skipped: ${skipped[*]:-none}"
echo "cases:    $ncases (releases $releases; nodes ${nodes[*]})"
echo "graphs:   $ngraphs compared, $nequal equal, $((nknown + nnew)) differ ($nknown known, $nnew new)"
echo "channels: $nch compared, NICs in and out equal on $nnic, entry and exit GPUs on $ngpu"
echo "trees:    $ntree channels compared, whole chain equal on $nchain"
if [ -s "$chtable.shown" ]; then
	echo "channels whose NICs differ:"
	cat "$chtable.shown"
fi
echo "failed:   $nfailed"
echo "time:     $((SECONDS - start)) s"
if [ "$nnew" = 0 ] && [ "$nchnew" = 0 ] && [ "$nfailed" = 0 ]; then
	echo PASS
else
	echo FAIL
	exit 1
fi
