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

# subsys REL VENDOR DEVICE: the subsystem ids of a device made by dev. Only
# the trees that need them have them (NCCL tells a Broadcom PEX switch's
# levels apart by them); the others stay as they were captured.
subsys() {
    printf '0x%04x\n' "$2" >"$T/devices/$1/subsystem_vendor"
    printf '0x%04x\n' "$3" >"$T/devices/$1/subsystem_device"
}

# A loaded module has a refcnt file in sysfs (and git keeps no empty folder).
module() { mkdir -p "$T/module/$1"; echo 1 >"$T/module/$1/refcnt"; [ -z "${2:-}" ] || echo "$2" >"$T/module/$1/version"; }

begin() { T=$here/$1; rm -rf "$T"; mkdir -p "$T/devices" "$T/module"; }

BR=0x060400 GPU3D=0x030200 VGA=0x030000 IB=0x020700 ETH=0x020000

# 1. dgx-8gpu: two sockets, two PCIe Gen4 switches each, each switch shared
# by two A100s and one ConnectX-6 (DGX-A100-like). On socket 1 the first
# pair of GPUs sits behind a second switch level (PXB to its NIC). The
# switches have no subsystem ids, so NCCL's Broadcom flattening (bcm-pex
# below) does not apply to them. Root
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

# 5. bcm-pex: two sockets, one Broadcom PEX switch each, in base mode: the
# chip shows itself as an upper switch whose downstream ports lead to
# sub-switches of the same chip. NCCL folds the sub-switches into the upper
# one (topo.cc ncclTopoFlattenBcmSwitches), by the ids getBcmGen matches:
#   socket 0, PEX88096 (Gen4): upper 01:00.0 and subs 03:00.0, 07:00.0, all
#     1000:c010 subsystem 1000:a096 (Gen4 has one pattern for both levels);
#     GPUs 05:00.0 and 06:00.0 under 03:00.0, NIC 09:00.0 under 07:00.0.
#   socket 1, PEX89144 (Gen5): upper 81:00.0, 1000:c030 subsystem 1000:0144
#     (level 0); subs 83:00.0 (GPU 85:00.0) and 86:00.0 (NIC 88:00.0),
#     subsystem 1000:100b (level 1, pci.ids: "Virtual Upstream/Downstream
#     Port"); and 89:00.0, a second chip cascaded below the first, with the
#     level-0 subsystem 1000:0144: not folded (GPU 8b:00.0 behind it).
# Folded, the switches are 01:00.0, 81:00.0, 89:00.0 (7 before). H100 PCIe
# GPUs, ConnectX-7 NICs, peermem loaded, ACS cleared on the switch ports.
begin bcm-pex
A=pci0000:00/0000:00:01.0 U=pci0000:00/0000:00:01.0/0000:01:00.0
dev $A                                        0x1022 0x1483 $BR 0 4 16 4 4096 0x1d
dev $U                                        0x1000 0xc010 $BR 0 4 16 4 4096
subsys $U 0x1000 0xa096
for p in 0 1; do dev $U/0000:02:0$p.0 0x1000 0xc010 $BR 0 4 16 4 4096 0x00; done
dev $U/0000:02:00.0/0000:03:00.0              0x1000 0xc010 $BR 0 4 16 4 4096
subsys $U/0000:02:00.0/0000:03:00.0 0x1000 0xa096
for p in 0 1; do dev $U/0000:02:00.0/0000:03:00.0/0000:04:0$p.0 0x1000 0xc010 $BR 0 4 16 4 4096 0x00; done
dev $U/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0 0x10de 0x2331 $GPU3D 0 5 16 1 4096
dev $U/0000:02:00.0/0000:03:00.0/0000:04:01.0/0000:06:00.0 0x10de 0x2331 $GPU3D 0 5 16 1 4096
dev $U/0000:02:01.0/0000:07:00.0              0x1000 0xc010 $BR 0 4 16 4 4096
subsys $U/0000:02:01.0/0000:07:00.0 0x1000 0xa096
dev $U/0000:02:01.0/0000:07:00.0/0000:08:00.0 0x1000 0xc010 $BR 0 4 16 4 4096 0x00
dev $U/0000:02:01.0/0000:07:00.0/0000:08:00.0/0000:09:00.0 0x15b3 0x1021 $IB 0 5 16 4 4096
ib mlx5_0 $U/0000:02:01.0/0000:07:00.0/0000:08:00.0/0000:09:00.0 "400 Gb/sec (4X NDR)" InfiniBand
A=pci0000:80/0000:80:01.0 U=pci0000:80/0000:80:01.0/0000:81:00.0
dev $A                                        0x1022 0x1483 $BR 1 5 16 5 4096 0x1d
dev $U                                        0x1000 0xc030 $BR 1 5 16 5 4096
subsys $U 0x1000 0x0144
for p in 0 1 2; do dev $U/0000:82:0$p.0 0x1000 0xc030 $BR 1 5 16 5 4096 0x00; done
dev $U/0000:82:00.0/0000:83:00.0              0x1000 0xc030 $BR 1 5 16 5 4096
subsys $U/0000:82:00.0/0000:83:00.0 0x1000 0x100b
dev $U/0000:82:00.0/0000:83:00.0/0000:84:00.0 0x1000 0xc030 $BR 1 5 16 5 4096 0x00
dev $U/0000:82:00.0/0000:83:00.0/0000:84:00.0/0000:85:00.0 0x10de 0x2331 $GPU3D 1 5 16 1 4096
dev $U/0000:82:01.0/0000:86:00.0              0x1000 0xc030 $BR 1 5 16 5 4096
subsys $U/0000:82:01.0/0000:86:00.0 0x1000 0x100b
dev $U/0000:82:01.0/0000:86:00.0/0000:87:00.0 0x1000 0xc030 $BR 1 5 16 5 4096 0x00
dev $U/0000:82:01.0/0000:86:00.0/0000:87:00.0/0000:88:00.0 0x15b3 0x1021 $IB 1 5 16 5 4096
ib mlx5_1 $U/0000:82:01.0/0000:86:00.0/0000:87:00.0/0000:88:00.0 "400 Gb/sec (4X NDR)" InfiniBand
dev $U/0000:82:02.0/0000:89:00.0              0x1000 0xc030 $BR 1 5 16 5 4096
subsys $U/0000:82:02.0/0000:89:00.0 0x1000 0x0144
dev $U/0000:82:02.0/0000:89:00.0/0000:8a:00.0 0x1000 0xc030 $BR 1 5 16 5 4096 0x00
dev $U/0000:82:02.0/0000:89:00.0/0000:8a:00.0/0000:8b:00.0 0x10de 0x2331 $GPU3D 1 5 16 1 4096
module nvidia; module mlx5_core; module nvidia_peermem 550.54.15

# 6. pxb-8gpu: eight V100s and four ConnectX-5s, two sockets, two root
# ports each; every root port has a switch (T) whose downstream ports lead
# to a second switch (G) holding two GPUs and, shape A, a third (N) holding
# the NIC, or, shape B, the NIC itself. So every GPU is two switch levels
# from its NIC (PXB). Not Broadcom PEX, so nothing is flattened: socket 0
# is Microchip Switchtec PFX (11f8:8536), socket 1 PLX PEX 8747
# (10b5:8747, PLX's own vendor id, which NCCL does not flatten).
#   00:01.0 A: T 01:00.0 > G 03:00.0 (GPUs 05, 06) ; N 07:00.0 (NIC 09)
#   00:02.0 B: T 11:00.0 > G 13:00.0 (GPUs 15, 16) ; NIC 17 on T
#   80:01.0 A: T 81:00.0 > G 83:00.0 (GPUs 85, 86) ; N 87:00.0 (NIC 89)
#   80:02.0 B: T 91:00.0 > G 93:00.0 (GPUs 95, 96) ; NIC 97 on T
# Peermem loaded, ACS cleared on the switch ports.
# shape R VENDOR DEVICE NUMA RP TBUS GBUS GPU1 GPU2 NBUS NIC NAME: one root port.
shape() {
    local r=$1 ven=$2 did=$3 numa=$4 rp=$5 t=$6 g=$7 g1=$8 g2=$9 nb=${10} nic=${11} name=${12}
    local dom=${rp%%:*} P=$r/$rp
    # not T: dev and ib write under the global $T (bash scoping is dynamic)
    local up=$P/$dom:$t:00.0 tb=$(printf '%02x' $((0x$t + 1))) gb=$(printf '%02x' $((0x$g + 1)))
    dev $P                         0x8086 0x2030 $BR $numa 3 16 3 4096 0x1d
    dev $up                        $ven $did $BR $numa 3 16 3 4096
    subsys $up $ven $did
    for p in 0 1; do dev $up/$dom:$tb:0$p.0 $ven $did $BR $numa 3 16 3 4096 0x00; done
    local G=$up/$dom:$tb:00.0/$dom:$g:00.0
    dev $G                         $ven $did $BR $numa 3 16 3 4096
    subsys $G $ven $did
    dev $G/$dom:$gb:00.0           $ven $did $BR $numa 3 16 3 4096 0x00
    dev $G/$dom:$gb:01.0           $ven $did $BR $numa 3 16 3 4096 0x00
    dev $G/$dom:$gb:00.0/$dom:$g1:00.0 0x10de 0x1db4 $GPU3D $numa 3 16 1 4096
    dev $G/$dom:$gb:01.0/$dom:$g2:00.0 0x10de 0x1db4 $GPU3D $numa 3 16 1 4096
    local at=$up/$dom:$tb:01.0
    if [ -n "$nb" ]; then
        local N=$at/$dom:$nb:00.0 nbb=$(printf '%02x' $((0x$nb + 1)))
        dev $N                     $ven $did $BR $numa 3 16 3 4096
        subsys $N $ven $did
        dev $N/$dom:$nbb:00.0      $ven $did $BR $numa 3 16 3 4096 0x00
        at=$N/$dom:$nbb:00.0
    fi
    dev $at/$dom:$nic:00.0         0x15b3 0x1017 $IB $numa 3 16 3 4096
    ib $name $at/$dom:$nic:00.0 "100 Gb/sec (4X EDR)" InfiniBand
}
begin pxb-8gpu
shape pci0000:00 0x11f8 0x8536 0 0000:00:01.0 01 03 05 06 07 09 mlx5_0
shape pci0000:00 0x11f8 0x8536 0 0000:00:02.0 11 13 15 16 "" 17 mlx5_1
shape pci0000:80 0x10b5 0x8747 1 0000:80:01.0 81 83 85 86 87 89 mlx5_2
shape pci0000:80 0x10b5 0x8747 1 0000:80:02.0 91 93 95 96 "" 97 mlx5_3
module nvidia; module mlx5_core; module nvidia_peermem 535.161.08

echo "fixtures written under $here"
