# Configure and build libzcache (library, tools, tests, benchmarks) three times,
# (Release, Debug, RelWithDebInfo) with gcc -j2, the system headers taken from ./inc.
set -e
inc="-isystem $PWD/inc/x86_64-linux-gnu -isystem $PWD/inc"
for t in Release Debug RelWithDebInfo; do
  cmake -S zcache -B "build-$t" -DCMAKE_BUILD_TYPE=$t -DCMAKE_C_FLAGS="$inc" > /dev/null
  cmake --build "build-$t" -j2 > /dev/null
done
