# SPDX-License-Identifier: MIT
# cmake -DIN=file -DOUT=file.c -DNAME=sym -P embed.cmake
# Writes a C array of IN's bytes (what xxd -i does, without needing xxd).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
# sixteen bytes a line (CMake regexes have no {n})
string(REPEAT "0x..," 16 line)
string(REGEX REPLACE "(${line})" "\\1\n" body "${body}")
file(WRITE "${OUT}"
  "/* Generated from ${IN} by real/embed.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "/* 8-byte aligned: cuModuleLoadData reads the fatbin header in place. */\n"
  "const unsigned char ${NAME}[] __attribute__((aligned(8))) = {\n${body}\n};\n"
  "const size_t ${NAME}_len = ${bytes};\n")
