#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Builds the captured-sysfs fixtures that tests/unit/test_probe.c reads with
# 'gdrlab probe --sysfs DIR'. Each is the subset of a real /sys that the
# probe looks at, laid out as the kernel does:
#   devices/pciDDDD:BB/<root port>/<bridges...>/<device>/{vendor,device,class,
#     numa_node,max_link_speed,max_link_width,current_link_*,config}
#   bus/pci/devices/<bdf> -> ../../../devices/...        (relative links)
#   devices/.../<nic>/infiniband/mlx5_N/{device -> ../../../<nic>,ports/1/...}
#   class/infiniband/mlx5_N -> ../../devices/.../infiniband/mlx5_N
#   module/...                                           (nvidia_peermem or not)
# config files are 4096 bytes (as root reads them) with an AER and, on
# bridges that have one, an ACS extended capability; 64 bytes where the tree
# was captured as non-root. Committed together with its output:
#   tests/data/sysfs/make-fixtures.sh && git diff tests/data/sysfs
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
T=

le16() { printf '\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)); }
le32() { le16 $(($1 & 65535)); le16 $((($1 >> 16) & 65535)); }
put() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
speed() { case $1 in 1) echo "2.5 GT/s PCIe";; 2) echo "5.0 GT/s PCIe";; 3) echo "8.0 GT/s PCIe";;
                     4) echo "16.0 GT/s PCIe";; 5) echo "32.0 GT/s PCIe";; esac; }

# config FILE VENDOR DEVICE CLASS SIZE [ACS_CTRL]: a config-space image.
config() {
    local f=$1 ven=$2 did=$3 cls=$4 size=$5 acs=${6:-}
    local hdr=0
    [ $((cls >> 8)) -eq $((0x0604)) ] && hdr=1    # type 1 header: a bridge
    head -c "$size" /dev/zero >"$f"
    put "$f" 0 "$(le16 "$ven")$(le16 "$did")"
    put "$f" 9 "$(printf '\\x%02x\\x%02x\\x%02x' $((cls & 255)) $(((cls >> 8) & 255)) $((cls >> 16)))"
    put "$f" 14 "$(printf '\\x%02x' $hdr)"
    [ "$size" -ge 4096 ] || return 0
    if [ -n "$acs" ]; then
        # AER (id 1, v2) at 0x100 -> ACS (id 0xd, v1) at 0x148; ACS cap 0x5f
        # (SV TB RR CR UF EC), control at 0x148 + 6.
        put "$f" $((0x100)) "$(le32 $(((0x148 << 20) | (2 << 16) | 1)))"
        put "$f" $((0x148)) "$(le32 $(((1 << 16) | 0xd)))$(le16 0x5f)$(le16 "$acs")"
    else
        put "$f" $((0x100)) "$(le32 $(((2 << 16) | 1)))"   # AER only, end of list
    fi
}

# dev REL VENDOR DEVICE CLASS NUMA GEN WIDTH CUR_GEN CFG_SIZE [ACS_CTRL]
dev() {
    local rel=$1 ven=$2 did=$3 cls=$4 numa=$5 gen=$6 width=$7 cur=$8 size=$9 acs=${10:-}
    local d=$T/devices/$rel bdf=${1##*/}
    mkdir -p "$d" "$T/bus/pci/devices"
    printf '0x%04x\n' "$ven" >"$d/vendor"
    printf '0x%04x\n' "$did" >"$d/device"
    printf '0x%06x\n' "$cls" >"$d/class"
    echo "$numa" >"$d/numa_node"
    speed "$gen" >"$d/max_link_speed"
    echo "$width" >"$d/max_link_width"
    speed "$cur" >"$d/current_link_speed"
    echo "$width" >"$d/current_link_width"
    config "$d/config" "$ven" "$did" "$cls" "$size" "$acs"
    ln -s "../../../devices/$rel" "$T/bus/pci/devices/$bdf"
}

# ib NAME REL RATE LINK_LAYER: an RDMA device on the PCI function REL.
ib() {
    local name=$1 rel=$2 rate=$3 layer=$4
    local d=$T/devices/$rel/infiniband/$name
    mkdir -p "$d/ports/1" "$T/class/infiniband"
    ln -s "../../../${rel##*/}" "$d/device"
    echo "$rate" >"$d/ports/1/rate"
    echo "4: ACTIVE" >"$d/ports/1/state"
    echo "$layer" >"$d/ports/1/link_layer"
    ln -s "../../devices/$rel/infiniband/$name" "$T/class/infiniband/$name"
}

# A loaded module has a refcnt file in sysfs (and git keeps no empty folder).
module() { mkdir -p "$T/module/$1"; echo 1 >"$T/module/$1/refcnt"; [ -z "${2:-}" ] || echo "$2" >"$T/module/$1/version"; }

begin() { T=$here/$1; rm -rf "$T"; mkdir -p "$T/devices" "$T/module"; }

BR=0x060400 GPU3D=0x030200 VGA=0x030000 IB=0x020700 ETH=0x020000

# 1. dgx-8gpu: two sockets, two PCIe Gen4 switches each, each switch shared
# by two A100s and one ConnectX-6 (DGX-A100-like). On socket 1 the first
# pair of GPUs sits behind a second switch level (PXB to its NIC). Root
# ports have ACS SV/RR/CR/UF on, as Linux sets them with an IOMMU; the
# switch downstream ports have ACS cleared, as GPUDirect setups require.
# An NVSwitch (vendor 10de, class 0680) must not be counted as a GPU.
begin dgx-8gpu
R0=pci0000:00 R1=pci0000:80
dev $R0/0000:00:01.1                          0x1022 0x1483 $BR 0 4 16 4 4096 0x1d
dev $R0/0000:00:01.1/0000:01:00.0             0x1000 0xc010 $BR 0 4 16 4 4096
for p in 0 1 2; do dev $R0/0000:00:01.1/0000:01:00.0/0000:02:0$p.0 0x1000 0xc010 $BR 0 4 16 4 4096 0x00; done
dev $R0/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0 0x10de 0x20b0 $GPU3D 0 4 16 1 4096
dev $R0/0000:00:01.1/0000:01:00.0/0000:02:01.0/0000:04:00.0 0x10de 0x20b0 $GPU3D 0 4 16 1 4096
dev $R0/0000:00:01.1/0000:01:00.0/0000:02:02.0/0000:05:00.0 0x15b3 0x101b $IB 0 4 16 4 4096
ib mlx5_0 $R0/0000:00:01.1/0000:01:00.0/0000:02:02.0/0000:05:00.0 "200 Gb/sec (4X HDR)" InfiniBand
dev $R0/0000:00:03.1                          0x1022 0x1483 $BR 0 4 16 4 4096 0x1d
dev $R0/0000:00:03.1/0000:11:00.0             0x1000 0xc010 $BR 0 4 16 4 4096
for p in 0 1 2; do dev $R0/0000:00:03.1/0000:11:00.0/0000:12:0$p.0 0x1000 0xc010 $BR 0 4 16 4 4096 0x00; done
dev $R0/0000:00:03.1/0000:11:00.0/0000:12:00.0/0000:13:00.0 0x10de 0x20b0 $GPU3D 0 4 16 1 4096
dev $R0/0000:00:03.1/0000:11:00.0/0000:12:01.0/0000:14:00.0 0x10de 0x20b0 $GPU3D 0 4 16 1 4096
dev $R0/0000:00:03.1/0000:11:00.0/0000:12:02.0/0000:15:00.0 0x15b3 0x101b $IB 0 4 16 4 4096
ib mlx5_1 $R0/0000:00:03.1/0000:11:00.0/0000:12:02.0/0000:15:00.0 "200 Gb/sec (4X HDR)" InfiniBand
dev $R0/0000:00:05.1                          0x1022 0x1483 $BR 0 4 16 4 4096 0x1d
dev $R0/0000:00:05.1/0000:21:00.0             0x10de 0x1af1 0x068000 0 4 8 4 4096
S=$R1/0000:80:01.1/0000:81:00.0
dev $R1/0000:80:01.1                          0x1022 0x1483 $BR 1 4 16 4 4096 0x1d
dev $S                                        0x1000 0xc010 $BR 1 4 16 4 4096
dev $S/0000:82:00.0                           0x1000 0xc010 $BR 1 4 16 4 4096 0x00
dev $S/0000:82:01.0                           0x1000 0xc010 $BR 1 4 16 4 4096 0x00
dev $S/0000:82:00.0/0000:83:00.0              0x1000 0xc010 $BR 1 4 16 4 4096
dev $S/0000:82:00.0/0000:83:00.0/0000:84:00.0 0x1000 0xc010 $BR 1 4 16 4 4096 0x00
dev $S/0000:82:00.0/0000:83:00.0/0000:84:01.0 0x1000 0xc010 $BR 1 4 16 4 4096 0x00
dev $S/0000:82:00.0/0000:83:00.0/0000:84:00.0/0000:85:00.0 0x10de 0x20b0 $GPU3D 1 4 16 1 4096
dev $S/0000:82:00.0/0000:83:00.0/0000:84:01.0/0000:86:00.0 0x10de 0x20b0 $GPU3D 1 4 16 1 4096
dev $S/0000:82:01.0/0000:87:00.0              0x15b3 0x101b $IB 1 4 16 4 4096
ib mlx5_2 $S/0000:82:01.0/0000:87:00.0 "200 Gb/sec (4X HDR)" InfiniBand
dev $R1/0000:80:03.1                          0x1022 0x1483 $BR 1 4 16 4 4096 0x1d
dev $R1/0000:80:03.1/0000:91:00.0             0x1000 0xc010 $BR 1 4 16 4 4096
for p in 0 1 2; do dev $R1/0000:80:03.1/0000:91:00.0/0000:92:0$p.0 0x1000 0xc010 $BR 1 4 16 4 4096 0x00; done
dev $R1/0000:80:03.1/0000:91:00.0/0000:92:00.0/0000:93:00.0 0x10de 0x20b0 $GPU3D 1 4 16 1 4096
dev $R1/0000:80:03.1/0000:91:00.0/0000:92:01.0/0000:94:00.0 0x10de 0x20b0 $GPU3D 1 4 16 1 4096
dev $R1/0000:80:03.1/0000:91:00.0/0000:92:02.0/0000:95:00.0 0x15b3 0x101b $IB 1 4 16 4 4096
ib mlx5_3 $R1/0000:80:03.1/0000:91:00.0/0000:92:02.0/0000:95:00.0 "200 Gb/sec (4X HDR)" InfiniBand
module nvidia; module mlx5_core; module nvidia_peermem 550.54.15

# 2. ws-2socket: a workstation with the GPU (RTX A6000, VGA class, with its
# HDMI audio function) on socket 0 and the ConnectX-6 on socket 1 (SYS).
# Captured as non-root: config files hold 64 bytes, so ACS is unknown.
# nvidia-peermem is not loaded.
begin ws-2socket
dev pci0000:00/0000:00:01.0                   0x8086 0x347a $BR 0 4 16 4 64
dev pci0000:00/0000:00:01.0/0000:01:00.0      0x10de 0x2230 $VGA 0 4 16 1 64
dev pci0000:00/0000:00:01.0/0000:01:00.1      0x10de 0x1aef 0x040300 0 4 16 1 64
dev pci0000:80/0000:80:01.0                   0x8086 0x347a $BR 1 4 16 4 64
dev pci0000:80/0000:80:01.0/0000:81:00.0      0x15b3 0x101b $IB 1 4 16 4 64
ib mlx5_0 pci0000:80/0000:80:01.0/0000:81:00.0 "100 Gb/sec (4X EDR)" InfiniBand
module nvidia; module mlx5_core

# 3. acs-redirect: one socket, two PCIe Gen3 switches, each with a V100 and
# a ConnectX-5 (RoCE). ACS redirect (SV RR CR UF) is on in the downstream
# ports of the first switch, cleared on the second. Peer memory is the old
# nv_peer_mem, visible only as kernel/mm/memory_peers/nv_mem (< 6.6).
begin acs-redirect
A=pci0000:00/0000:00:01.0 B=pci0000:00/0000:00:02.0
dev $A                                        0x8086 0x2030 $BR 0 3 16 3 4096 0x1d
dev $A/0000:01:00.0                           0x10b5 0x8747 $BR 0 3 16 3 4096
dev $A/0000:01:00.0/0000:02:08.0              0x10b5 0x8747 $BR 0 3 16 3 4096 0x1d
dev $A/0000:01:00.0/0000:02:10.0              0x10b5 0x8747 $BR 0 3 16 3 4096 0x1d
dev $A/0000:01:00.0/0000:02:08.0/0000:03:00.0 0x10de 0x1db4 $GPU3D 0 3 16 3 4096
dev $A/0000:01:00.0/0000:02:10.0/0000:04:00.0 0x15b3 0x1017 $ETH 0 3 16 3 4096
ib mlx5_0 $A/0000:01:00.0/0000:02:10.0/0000:04:00.0 "100 Gb/sec (4X EDR)" Ethernet
dev $B                                        0x8086 0x2031 $BR 0 3 16 3 4096 0x1d
dev $B/0000:05:00.0                           0x10b5 0x8747 $BR 0 3 16 3 4096
dev $B/0000:05:00.0/0000:06:08.0              0x10b5 0x8747 $BR 0 3 16 3 4096 0x00
dev $B/0000:05:00.0/0000:06:10.0              0x10b5 0x8747 $BR 0 3 16 3 4096 0x00
dev $B/0000:05:00.0/0000:06:08.0/0000:07:00.0 0x10de 0x1db4 $GPU3D 0 3 16 3 4096
dev $B/0000:05:00.0/0000:06:10.0/0000:08:00.0 0x15b3 0x1017 $ETH 0 3 16 3 4096
ib mlx5_1 $B/0000:05:00.0/0000:06:10.0/0000:08:00.0 "100 Gb/sec (4X EDR)" Ethernet
module nvidia; module mlx5_core
mkdir -p "$T/kernel/mm/memory_peers/nv_mem"; echo 1.1-0 >"$T/kernel/mm/memory_peers/nv_mem/version"

# 4. gh200-c2c: two GH200 superchips (GPU 10de:2342 on its Grace's PCIe
# domain 0009/0019, reached by the CPU over NVLink-C2C) and a ConnectX-7 on
# each Grace (domains 0000/0010). In sysfs GPU and NIC are on different
# host bridges of one NUMA node (PHB); with C2C that is NCCL's P2C.
begin gh200-c2c
dev pci0009:00/0009:00:00.0                   0x10de 0x22b2 $BR 0 5 16 5 4096 0x1d
dev pci0009:00/0009:00:00.0/0009:01:00.0      0x10de 0x2342 $GPU3D 0 5 16 5 4096
dev pci0000:00/0000:00:00.0                   0x10de 0x22b2 $BR 0 5 16 5 4096 0x1d
dev pci0000:00/0000:00:00.0/0000:01:00.0      0x15b3 0x1021 $IB 0 5 16 5 4096
ib mlx5_0 pci0000:00/0000:00:00.0/0000:01:00.0 "400 Gb/sec (4X NDR)" InfiniBand
dev pci0019:00/0019:00:00.0                   0x10de 0x22b2 $BR 1 5 16 5 4096 0x1d
dev pci0019:00/0019:00:00.0/0019:01:00.0      0x10de 0x2342 $GPU3D 1 5 16 5 4096
dev pci0010:00/0010:00:00.0                   0x10de 0x22b2 $BR 1 5 16 5 4096 0x1d
dev pci0010:00/0010:00:00.0/0010:01:00.0      0x15b3 0x1021 $IB 1 5 16 5 4096
ib mlx5_1 pci0010:00/0010:00:00.0/0010:01:00.0 "400 Gb/sec (4X NDR)" InfiniBand
module nvidia; module mlx5_core; module nvidia_peermem 550.54.15

echo "fixtures written under $here"
