# A small-file server's reads: REQUESTS requests over the files listed in
# FILELIST, with Zipf(0.9) popularity (a seeded shuffle decides which files
# are popular), arriving in bursts of 50 with 8 ms between bursts; every
# file is read whole with read(2).  Run by the system's python3 (not from
# the traced file system).
import os, random, sys, time, bisect
files = [l.rstrip("\n") for l in open(sys.argv[1])]
requests = int(sys.argv[2])
rng = random.Random(1)
rng.shuffle(files)
weights = [1.0 / (i + 1) ** 0.9 for i in range(len(files))]
cum, s = [], 0.0
for w in weights:
    s += w
    cum.append(s)
for i in range(requests):
    f = files[bisect.bisect_left(cum, rng.random() * s)]
    with open(f, "rb", buffering=0) as fh:
        while fh.read(65536):
            pass
    if i % 50 == 49:
        time.sleep(0.008)
