# The system headers the build includes, copied into ./inc (the C library's,
# the compression libraries', cmocka's), so that the compiler reads them
# from the traced file system too.
set -e
mkdir -p inc
cd /usr/include
cp -a --parents $(ls -d * | grep -v -E '^(node|llvm-14|c\+\+|unicode|python3.11|tcl8.6|X11|GL|valgrind|nss|nspr|freetype2|openssl)$') "$OLDPWD/inc/"
