#!/usr/bin/env bash
# Write the seed corpus of every fuzz target: fuzz/corpus/fuzz_NAME/seed-*,
# small valid examples of each format (and a few broken ones, so the error
# paths are seeded too).  Deterministic; run it again after changing it and
# commit the result.  Files of other names (regress-*: inputs that once
# broke something) are kept as they are.
set -euo pipefail
cd "$(dirname "$0")"
out=corpus

seed() { # seed TARGET NAME: stdin into the target's corpus
  mkdir -p "$out/$1"
  cat >"$out/$1/seed-$2"
}
for d in "$out"/fuzz_*/; do
  [ -d "$d" ] && rm -f "$d"seed-*
done

# ---- binary helpers: printf escapes of integers ------------------------

int() { # int VALUE BYTES ORDER(le|be)
  local v=$1 n=$2 s="" i b
  for ((i = 0; i < n; i++)); do
    b=$(printf '\\x%02x' $(((v >> (8 * i)) & 255)))
    if [ "$3" = le ]; then s+=$b; else s=$b$s; fi
  done
  printf '%s' "$s"
}

# ---- blktrace ------------------------------------------------------------
# struct blk_io_trace (48 bytes) then pdu_len payload bytes, in the byte
# order of the recording machine.  Actions: low 16 bits what happened, high
# 16 bits category (include/uapi/linux/blktrace_api.h).

TC_READ=$((0x1 << 16)) TC_WRITE=$((0x2 << 16)) TC_FLUSH=$((0x4 << 16))
TC_SYNC=$((0x8 << 16)) TC_QUEUE=$((0x10 << 16)) TC_ISSUE=$((0x40 << 16))
TC_COMPLETE=$((0x80 << 16)) TC_PC=$((0x200 << 16)) TC_NOTIFY=$((0x400 << 16))
TC_META=$((0x1000 << 16)) TC_DISCARD=$((0x2000 << 16))
TA_QUEUE=1 TA_BACKMERGE=2 TA_GETRQ=4 TA_ISSUE=7 TA_COMPLETE=8 TA_PLUG=9
TA_UNPLUG_IO=10 TA_INSERT=12 TA_REMAP=15 TA_CGROUP=$((1 << 8))
TN_PROCESS=0 TN_TIMESTAMP=1 TN_MESSAGE=2
SDB=$((8 << 20 | 16))

# rec ORDER SEQ TIME SECTOR BYTES ACTION PID DEV CPU PDU_LEN PDU_ESCAPES
rec() {
  local o=$1
  printf "$(int 0x65617407 4 "$o")$(int "$2" 4 "$o")$(int "$3" 8 "$o")"
  printf "$(int "$4" 8 "$o")$(int "$5" 4 "$o")$(int "$6" 4 "$o")"
  printf "$(int "$7" 4 "$o")$(int "$8" 4 "$o")$(int "$9" 4 "$o")"
  printf "$(int 0 2 "$o")$(int "${10}" 2 "$o")${11:-}"
}

# The remap payload is big-endian whatever the record's order.
remap_pdu() { # remap_pdu DEV_FROM DEV_TO SECTOR_FROM
  printf '%s' "$(int "$1" 4 be)$(int "$2" 4 be)$(int "$3" 8 be)"
}

# One CPU's records: a read queued after a remap, its life to completion,
# a write and a back merge, a flush, a discard, a cgroup-tagged read, a
# SCSI pass-through, plug/unplug and the notify records blktrace writes
# (process name, timestamp, message).  cpu_records ORDER CPU T0 SECTOR;
# cpu_head and cpu_tail are its first ten records and the others.
cpu_records() {
  cpu_head "$@"
  cpu_tail "$@"
}
cpu_head() {
  local o=$1 c=$2 t=$3 s=$4 pid=$((4242 + $2))
  rec "$o" 1 "$t" 0 0 $((TN_PROCESS | TC_NOTIFY)) "$pid" "$SDB" "$c" 5 'java\x00'
  rec "$o" 2 "$t" 0 0 $((TN_TIMESTAMP | TC_NOTIFY)) 0 "$SDB" "$c" 8 \
    "$(int 1700000000 4 "$o")$(int 123456789 4 "$o")"
  rec "$o" 3 $((t + 100)) "$s" 131072 $((TA_REMAP | TC_QUEUE | TC_READ)) "$pid" "$SDB" "$c" 16 \
    "$(remap_pdu $((8 << 20 | 17)) "$SDB" $((s - 34)))"
  rec "$o" 4 $((t + 200)) "$s" 131072 $((TA_QUEUE | TC_QUEUE | TC_READ)) "$pid" "$SDB" "$c" 0
  rec "$o" 5 $((t + 300)) "$s" 131072 $((TA_GETRQ | TC_QUEUE | TC_READ)) "$pid" "$SDB" "$c" 0
  rec "$o" 6 $((t + 400)) 0 0 $((TA_PLUG | TC_QUEUE)) "$pid" "$SDB" "$c" 0
  rec "$o" 7 $((t + 500)) "$s" 131072 $((TA_INSERT | TC_QUEUE | TC_READ)) "$pid" "$SDB" "$c" 0
  rec "$o" 8 $((t + 600)) 0 0 $((TA_UNPLUG_IO | TC_QUEUE)) "$pid" "$SDB" "$c" 4 "$(int 1 4 "$o")"
  rec "$o" 9 $((t + 700)) "$s" 131072 $((TA_ISSUE | TC_ISSUE | TC_READ)) "$pid" "$SDB" "$c" 0
  rec "$o" 10 $((t + 900)) "$s" 131072 $((TA_COMPLETE | TC_COMPLETE | TC_READ)) 0 "$SDB" "$c" 0
}
cpu_tail() {
  local o=$1 c=$2 t=$3 s=$4 pid=$((4242 + $2))
  local r=$((TA_QUEUE | TC_QUEUE | TC_READ)) w=$((TA_QUEUE | TC_QUEUE | TC_WRITE))
  rec "$o" 11 $((t + 1000)) $((s + 4096)) 4096 $((w | TC_SYNC)) "$pid" "$SDB" "$c" 0
  rec "$o" 12 $((t + 1100)) $((s + 4104)) 4096 "$w" "$pid" "$SDB" "$c" 0
  rec "$o" 13 $((t + 1150)) $((s + 4104)) 4096 $((TA_BACKMERGE | TC_QUEUE | TC_WRITE)) "$pid" "$SDB" "$c" 0
  rec "$o" 14 $((t + 1200)) 0 0 $((w | TC_FLUSH | TC_SYNC)) "$pid" "$SDB" "$c" 0
  rec "$o" 15 $((t + 1300)) 2048 1048576 $((w | TC_DISCARD)) "$pid" "$SDB" "$c" 0
  rec "$o" 16 $((t + 1400)) $((s + 9000)) 8192 $((r | TA_CGROUP | TC_META)) "$pid" "$SDB" "$c" 8 \
    "$(int 77 8 "$o")"
  rec "$o" 17 $((t + 1500)) 0 36 $((TA_QUEUE | TC_QUEUE | TC_PC)) "$pid" "$SDB" "$c" 6 \
    '\x12\x00\x00\x00\x24\x00'
  rec "$o" 18 $((t + 1600)) 0 0 $((TN_MESSAGE | TC_NOTIFY)) 0 "$SDB" "$c" 12 'cfq1211A /\x00\x00'
  rec "$o" 19 $((t + 1700)) $((s + 12000)) 512 "$r" "$pid" $((259 << 20 | 3)) "$c" 0
}

# fuzz_blktrace cuts its input at the little-endian u32 in bytes 4..7 (the
# first record's sequence field): point it at a record boundary.
set_cut() { # set_cut FILE OFFSET
  printf "$(int "$2" 4 le)" | dd of="$1" bs=1 seek=4 conv=notrunc status=none
}

bt=fuzz_blktrace
for o in le be; do
  cpu_records $o 0 1000000 1444645666 | seed $bt $o-one-cpu
  set_cut "$out/$bt/seed-$o-one-cpu" "$(cpu_head $o 0 1000000 1444645666 | wc -c)"
  { cpu_records $o 0 1000000 1444645666; cpu_records $o 1 1000050 3428327242; } |
    seed $bt $o-two-cpus
  set_cut "$out/$bt/seed-$o-two-cpus" $(($(wc -c <"$out/$bt/seed-$o-two-cpus") / 2))
done
{ cpu_records le 0 5000 100; cpu_records be 1 0 200; } | seed $bt mixed-orders
set_cut "$out/$bt/seed-mixed-orders" $(($(wc -c <"$out/$bt/seed-mixed-orders") / 2))
seed $bt empty </dev/null
# One file holding four CPUs' queue events in time order, as fuzz_blktrace
# deals them out again by their cpu field.
for ((i = 0; i < 16; i++)); do
  o=le
  [ $((i % 3)) -eq 0 ] && o=be
  rec $o $((i / 4)) $((1000 + 10 * i)) $((8 * i)) 4096 \
    $((TA_QUEUE | TC_QUEUE | (i % 2 ? TC_WRITE : TC_READ))) 7 "$SDB" $((i % 4)) 0
done | seed $bt four-cpus-in-order
{
  rec le 0 10 8 4096 $((TA_QUEUE | TC_QUEUE | TC_READ)) 1 "$SDB" 0 0
  rec le 0 20 16 4096 $((TA_QUEUE | TC_QUEUE | TC_READ)) 1 "$SDB" 0 0
  printf 'XXXX'
  head -c 44 /dev/zero
} | seed $bt bad-magic
{
  rec le 0 10 8 4096 $((TA_QUEUE | TC_QUEUE | TC_READ)) 1 "$SDB" 0 0
  printf "$(int 0x65617406 4 le)"
  head -c 44 /dev/zero
} | seed $bt bad-version
{
  rec be 48 10 8 4096 $((TA_QUEUE | TC_QUEUE | TC_READ)) 1 "$SDB" 0 0
  rec be 0 20 16 4096 $((TA_QUEUE | TC_QUEUE | TC_READ)) 1 "$SDB" 0 0 | head -c 30 || true
} | seed $bt truncated-header
set_cut "$out/$bt/seed-truncated-header" 48
{
  rec le 48 10 8 4096 $((TA_QUEUE | TC_QUEUE | TC_READ)) 1 "$SDB" 0 0
  rec le 0 20 0 0 $((TN_MESSAGE | TC_NOTIFY)) 1 "$SDB" 0 100 'short payload'
} | seed $bt payload-past-end
{
  rec le 48 10 8 4096 $((TA_QUEUE | TC_QUEUE | TC_READ)) 1 "$SDB" 0 0
  rec le 0 20 $((1 << 56)) 4096 $((TA_QUEUE | TC_QUEUE | TC_WRITE)) 1 "$SDB" 0 0
  rec le 0 30 -1 1 $((TA_QUEUE | TC_QUEUE | TC_WRITE)) 1 "$SDB" 0 0
} | seed $bt sector-overflow

# ---- blkparse ------------------------------------------------------------

bp=fuzz_blkparse
seed $bp life-of-a-read <<'EOF'
  8,16   5        1     0.000000000 18615  A   R 1444645666 + 256 <- (8,17) 1444645632
  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]
  8,16   5        3     0.000006438 18615  G   R 1444645666 + 256 [java]
  8,16   5        4     0.000008750 18615  P   N [java]
  8,16   5        5     0.000009980 18615  I   R 1444645666 + 256 [java]
  8,16   5        0     0.000012990     0  m   N cfq18615S / insert_request
  8,16   5        0     0.000014003     0  m   N cfq18615S / add_to_rr
  8,16   5        0     0.000019648     0  m   N / served: vt=501413156864 min_vt=501413074944
  8,16   5        0     0.000021268     0  m   N cfq1211A / sl_used=40 disp=8 charge=40 iops=0 sect=7176
  8,16   5        6     0.000031865 18615  D   R 1444645666 + 256 [java]
  8,16   5        7     0.000046560 18615  U   N [java] 1
  8,16   5        8     0.000109528 18615  A   R 1444645922 + 256 <- (8,17) 1444645888
  8,16   5        9     0.000110160 18615  Q   R 1444645922 + 256 [java]
  8,16   2       10     0.004117250     0  C   R 1444645666 + 256 [0]
  8,16   2       11     9.378419262 16766  A   W 3428327242 + 8 <- (8,17) 3428327208
  8,16   2       12     9.378419363 16766  Q   W 3428327242 + 8 [flush-8:16]
  8,16   2       13     9.378419457 16766  M   W 3428327242 + 8 [flush-8:16]
  8,16   2       14     9.378420564 16766  Q   W 3428327250 + 8 [flush-8:16]
EOF
seed $bp kinds-and-summary <<'EOF'
  8,16   5        1     0.000000000 18615  A   R 1444645666 + 256 <- (8,17) 1444645632
  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]
  8,0    0        3     0.000002000 18615  X   R 100 / 108 [java]
  8,16   2        4     1.500000000 16766  Q  WS 3428327338 + 8 [flush-8:16]
  8,16   2        5     1.600000000 16766  Q FWS [kworker/2:1]
  8,16   2        6     1.700000000 16766  Q   D 100 + 8 [fstrim]
  8,16   2        7     1.800000000 16766  Q   R 200 + 0 [x]
  8,16   2        8     1.850000000 16766  Q   N 0 (12 00 00 00 24 00) [sg_inq]
  8,16   2        9     1.900000000 16766  UT   N [swapper] 1
  8,16   2       10     1.950000000 16766  Q  RM 8 + 8 [jbd2/sdb1-8]
  8,16   2       11     1.960000000 16766  Q WFS 16 + 8 [jbd2/sdb1-8]
259,3    0       12     2.000000000   100  Q  RA 16 + 8 [cat proc]
  8,16   1       13     3.000000000   101  Q   W 36028797018963966 + 1 [edge]
  8,16   1       14     4              102  Q   R 1 + 1 [no fraction]

CPU0 (8,16):
 Reads Queued:           1,      128KiB	 Writes Queued:           1,        4KiB
 Read Dispatches:        0,        0KiB	 Write Dispatches:        0,        0KiB
 IO unplugs:             1        	 Timer unplugs:           0
Total (8,16):
 Reads Queued:           2,      132KiB	 Writes Queued:           3,       12KiB

Throughput (R/W): 0KiB/s / 0KiB/s
Events (8,16): 14 entries
Skips: 0 forward (0 -   0.0%)
EOF
printf '  8,16   5        1     0.000000000 18615  Q   R 8 + 8 [dos]\r\n  8,16   5        2     0.000000100 18615  Q   W 16 + 8 [dos]\r\n' |
  seed $bp crlf
printf '  8,16   5        1     0.000000000 18615  Q   R 8 + 8 [java]\n  8,16   5        2     0.0000' |
  seed $bp cut-off-line
printf '  8,16   5        1     0.000000000 18615  Q   R 8 + 8 [java]\n  8,16   5        2     0.000000100 18615\n' |
  seed $bp bad-event-line
printf '  8,16   5        1     0.000000000 18615  Q   R 8 + x [java]\n' | seed $bp bad-count
printf '  8,16   5        1     0.000000000 18615  Q   R [java]\n  8,16   5        2     0.1 18615  Q   R 8 +\n' |
  seed $bp missing-count
printf '4096,0   5        1     0.000000000 18615  Q   R 8 + 8 [java]\n' | seed $bp device-range
printf '  8,16   5        1     0.000000000 18615  Q   W 36028797018963968 + 1 [java]\n' |
  seed $bp sector-overflow

# ---- vscsi ---------------------------------------------------------------

vs=fuzz_vscsi
seed $vs header-and-ops <<'EOF'
version,time,op,size,lbn
1,5633898,2a,512,42932745
1,5633898,2a,6656,40409911
1,5633899,28,4096,100
2,5633899.5,88,8192,1000000000000
2,5633900,8a,512,7
1,5633900,35,0,0
1,5633901,12,36,0
1,5633902,0x28,0,5
 1 , 5633903 , 0x2A , 1024 , 9 
EOF
printf '# converted from vscsi2\n\n2,0.000001,28,512,1\r\n2,0.000002,2a,512,2\r\n' | seed $vs comments-crlf
printf 'version,time,op,size,lbn\n1,1,28,512,1\nversion,time,op,size,lbn\n' | seed $vs header-twice
printf '1,1,zz,512,1\n' | seed $vs bad-op
printf '1,1,28,512\n' | seed $vs four-fields
printf '1,1,28,512,36028797018963968\n' | seed $vs lbn-overflow
printf '1,1,28,18446744073709551616,1\n' | seed $vs size-overflow

# ---- disksim -------------------------------------------------------------

ds=fuzz_disksim
seed $ds mqsim-ns <<'EOF'
938513000 4 264719034 16 0
938828000 3 197570570 16 0
938944000 13 93230992 32 0
939010000 5 230420970 16 1
939044000 6 238240490 16 1
EOF
seed $ds disksim-ms <<'EOF'
# arrival_ms device lba sectors type
0.000000 0 1234 8 1
0.125000 0 1242 8 0
1.500000	1	99	16	3
2.75 2 0 0 1

3.000000000001 4294967295 36028797018963966 1 1
EOF
printf '1.0 0 8 8 1\r\n2.0 0 16 8 0\r\n' | seed $ds crlf
printf '1.0 0 8 8\n' | seed $ds four-fields
printf '1.0 0 8 8 1 extra\n' | seed $ds six-fields
printf '1.0 4294967296 8 8 1\n' | seed $ds device-range
printf '1.0 0 36028797018963968 1 1\n' | seed $ds lba-overflow
printf '18446744073709551616 0 8 8 1\n' | seed $ds time-overflow
printf -- '-1.0 0 8 8 1\n' | seed $ds negative-time

# ---- blocklist-text --------------------------------------------------------

bl=fuzz_blocklist_text
seed $bl pages <<'EOF'
# pages of a small scan
0
1
2
  3  
1000000

4503599627370494
17
EOF
printf '5\r\n6\r\n7' | seed $bl crlf-no-final-newline
printf '1\n4503599627370496\n' | seed $bl page-overflow
printf '1\n2 3\n' | seed $bl two-numbers
printf '1\n12a\n' | seed $bl not-a-number
printf '18446744073709551616\n' | seed $bl u64-overflow

# ---- blocklist-u32 / -u64 --------------------------------------------------

for p in 0 1 2 3 1000 65535 4294967295 7; do printf "$(int $p 4 le)"; done |
  seed fuzz_blocklist_u32 pages
printf '\x01\x00\x00\x00\x02\x00\x00' | seed fuzz_blocklist_u32 odd-size
for p in 0 1 2 4503599627370494 99; do printf "$(int $p 8 le)"; done |
  seed fuzz_blocklist_u64 pages
for p in 5 4503599627370496; do printf "$(int $p 8 le)"; done |
  seed fuzz_blocklist_u64 page-overflow
printf '\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00' | seed fuzz_blocklist_u64 odd-size

# ---- access / access-text ---------------------------------------------------
# The binary form (src/sim/trace/access.h): a header whose Adler-32 is computed
# here, then opcode + LEB128 varints; the writer compresses it with zstd,
# and the seeds hold both the plain bytes and a compressed copy.

adler32() { # adler32 < FILE: the checksum as an escaped little-endian u32
  local a=1 b=0 c
  for c in $(od -An -v -tu1); do
    a=$(((a + c) % 65521))
    b=$(((b + a) % 65521))
  done
  int $(((b << 16) | a)) 4 le
}
varint() { # varint VALUE (below 2^63): LEB128 escapes
  local v=$1 s=""
  while ((v >= 128)); do
    s+=$(printf '\\x%02x' $(((v & 127) | 128)))
    v=$((v >> 7))
  done
  printf '%s' "$s$(printf '\\x%02x' "$v")"
}
zca_header() { # zca_header FIELDS [MINOR]: the header of version 1.MINOR
  local tmp          # (default 1), fields given with \n escapes
  tmp=$(mktemp)
  printf '\x89ZCA\r\n\x1a\n\x01\x00' >"$tmp"
  printf "$(int "${2:-1}" 2 le)" >>"$tmp"
  printf "$(int "$(printf "$1" | wc -c)" 4 le)" >>"$tmp"
  printf "$1" >>"$tmp"
  printf "$(adler32 <"$tmp")" >>"$tmp"
  cat "$tmp"
  rm -f "$tmp"
}
zrec() { # zrec OP VALUES...: one record
  local op=$1 s v
  shift
  s=$(printf '\\x%02x' "$op")
  for v in "$@"; do s+=$(varint "$v"); done
  printf "$s"
}
zca_records() { # version 1.0 records
  zrec 1 1000 $((8 << 20 | 17)) 12 0 4
  zrec 4 500 $((8 << 20 | 17)) 1234
  zrec 3 0 $((8 << 20 | 17)) 12 4 1
  zrec 2 1000000000 $((259 << 20 | 3)) 4611686018427387903 7 2
  zrec 1 1 4294967295 1 4503599627370494 1
}
zca_records_11() { # and 1.1's: sizes (05) and fault-around (06)
  zrec 5 0 $((8 << 20 | 17)) 12 20000
  zrec 6 10 $((8 << 20 | 17)) 12 2 3
  zrec 1 0 $((8 << 20 | 17)) 12 0 2
  zrec 5 7 $((8 << 20 | 17)) 12 9223372036854775807
  zrec 3 0 $((8 << 20 | 17)) 12 9 1
}
za=fuzz_access
{ zca_header 'page_size=4096\nmemory_limit=256M\npack=rec.zcp\n'; zca_records; zca_records_11; zrec 126 10; } |
  seed $za plain
{ zca_header 'page_size=4096\n' 0; zca_records; zrec 126 5; } | seed $za version-1.0
{ zca_header 'page_size=4096\n' 0; zca_records_11; zrec 126 5; } | seed $za version-1.0-new-records
{ zca_header 'page_size=4096\n'; zrec 5 1 1 0 4096; zrec 126 1; } | seed $za size-inode-zero
zstd -q -19 --check -c "$out/$za/seed-plain" | seed $za zstd
{ zca_header 'page_size=512\n'; zrec 126 0; } | seed $za no-records
{ zca_header 'page_size=4096\n'; zca_records; } | seed $za no-end
{ zca_header 'page_size=4096\n'; zrec 1 1 1 0 0 1; zrec 126 1; } | seed $za inode-zero
{ zca_header 'page_size=4096\n'; zrec 2 1 1 5 0 0; zrec 126 1; } | seed $za count-zero
{ zca_header 'page_size=4096\n'; printf '\x01\x01\x01\x01\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02'; } |
  seed $za varint-overflow
{ zca_header 'page_size=1000\n'; zrec 126 0; } | seed $za bad-page-size
{ zca_header 'page_size=4096\n'; zrec 126 0; zrec 126 0; } | seed $za after-end
head -c 40 "$out/$za/seed-plain" | seed $za truncated-header

zt=fuzz_access_text
seed $zt records <<'EOF'
# an access stream
zca-text 1
meta page_size 4096
meta memory_limit 256M
0.000001000 r 8:17 12 0 4
0.000001500 resident 8:17 1234
0.000001500 m 8388625 12 4
0.000001500 size 8:17 12 20000
0.000002 a 8:17 12 2 3
0.000002 r 8:17 12 0 2
0.000003 size 8388625 12 18446744073709551615
0.000003 m 8:17 12 9
1.5 w 259:3 4611686018427387903 7 2
18446744073.709551615 r 4095:1048575 1 4503599627370494
end
EOF
printf 'zca-text 1\r\nmeta page_size 512\r\n1 r 0:0 1 0\r\nend\r\n' | seed $zt crlf
printf 'zca-text 1\nmeta page_size 4096\n1 r 8:1 5 0\n' | seed $zt no-end
printf 'zca-text 1\nmeta page_size 4096\n2 r 8:1 5 0\n1 r 8:1 5 0\nend\n' | seed $zt time-back
printf 'zca-text 1\nmeta page_size 4096\n1 r 8:1 0 0\nend\n' | seed $zt inode-zero
printf 'zca-text 1\nmeta page_size 4096\n1 r 8:1 5 18446744073709551615 2\nend\n' |
  seed $zt index-overflow
printf 'zca-text 1\nmeta page_size 4096\nend\n1 r 8:1 5 0\n' | seed $zt after-end
printf 'zca-text 1\nmeta page_size 4096\n1 size 8:1 0 4096\nend\n' | seed $zt size-inode-zero
printf 'zca-text 1\nmeta page_size 4096\n1 size 8:1 5\n1 a 8:1 5 0\nend\n' | seed $zt size-short

# ---- auto: one of each sniffable format, and what sniffs as nothing --------

au=fuzz_auto
mkdir -p "$out/$au"
cp "$out/$bt/seed-le-one-cpu" "$out/$au/seed-blktrace-le"
cp "$out/$bt/seed-be-one-cpu" "$out/$au/seed-blktrace-be"
cp "$out/$bp/seed-kinds-and-summary" "$out/$au/seed-blkparse"
cp "$out/$vs/seed-header-and-ops" "$out/$au/seed-vscsi"
cp "$out/$vs/seed-comments-crlf" "$out/$au/seed-vscsi-no-header"
cp "$out/$ds/seed-disksim-ms" "$out/$au/seed-disksim"
cp "$out/$bl/seed-pages" "$out/$au/seed-blocklist-text"
cp "$out/$za/seed-plain" "$out/$au/seed-access"
cp "$out/$za/seed-zstd" "$out/$au/seed-access-zstd"
cp "$out/$zt/seed-records" "$out/$au/seed-access-text"
zstd -q -c "$out/$bp/seed-kinds-and-summary" | seed $au blkparse-zstd
{
  head -c 700 "$out/$bp/seed-life-of-a-read" | zstd -q -c
  tail -c +701 "$out/$bp/seed-life-of-a-read" | zstd -q -c
} | seed $au blkparse-two-frames
zstd -q -c "$out/$bp/seed-kinds-and-summary" | head -c 60 | seed $au zstd-truncated
seed $au empty </dev/null
printf '# only comments\n\n# here\n' | seed $au comments-only
printf 'GET / HTTP/1.1\r\nHost: example\r\n\r\n' | seed $au not-a-trace

# ---- config: zc_config_parse specs ------------------------------------------

cf=fuzz_config
printf 'capacity=64M,compressor=lzo,allocator=zbud' | seed $cf basic
printf 'page_size=65536,accept_percent=100,same_filled=off,exclusive_gets=yes,policy=lru,compressor=none,allocator=zsmalloc' |
  seed $cf every-key
printf ' capacity = 1GiB ,, allocator = zsmalloc , page_size=512 ,' | seed $cf blanks
printf 'capacity_bytes=123456,capacity=15G,capacity=0,same_filled=TRUE,exclusive_gets=0' | seed $cf aliases
printf '4KiB' | seed $cf size-suffix
printf '18446744073709551615' | seed $cf size-max
printf 'capacity=16777216T' | seed $cf size-overflow
printf 'capacity=1Q' | seed $cf bad-size
printf 'foo=bar' | seed $cf unknown-key
printf 'page_size=1000' | seed $cf bad-page-size
printf 'accept_percent=101' | seed $cf bad-percent
printf 'compressor=zstd' | seed $cf unknown-backend
printf 'capacity=' | seed $cf empty-value
printf 'capacity' | seed $cf no-equals

# ---- content: page-size byte, spec, NUL, file bytes ---------------------------
# The first byte picks the page size: 512 << (b % 8) below 0xf0 (3: 4096).

ct=fuzz_content
printf '\x03synth' | seed $ct synth
printf '\x00synth:42' | seed $ct synth-seed-512
printf '\x07random:18446744073709551615' | seed $ct random-max-seed
printf '\x03random:18446744073709551616' | seed $ct random-seed-overflow
printf '\x03zero' | seed $ct zero
printf '\x03zero:1' | seed $ct zero-with-arg
printf '\x01corpus:@\x00' | seed $ct corpus-empty-file
{ printf '\x01corpus:@\x00'; head -c 1500 "$out/$bp/seed-life-of-a-read"; } | seed $ct corpus
{ printf '\x00image:@\x00'; head -c 1300 "$out/$vs/seed-header-and-ops"; } | seed $ct image
printf '\x03image:missing' | seed $ct image-missing
printf '\x03image:' | seed $ct image-no-file
printf '\x03bogus:1' | seed $ct unknown-source
printf '\xf4synth' | seed $ct bad-page-size
