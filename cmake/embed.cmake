# Turn a file into a C source holding its bytes (run at build time with cmake -P):
#   cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -P embed.cmake
# defines `const unsigned char name[]` (with a terminating zero not counted) and
# `const unsigned long name_size`.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
set(lines "")
set(offset 0)
while(offset LESS hex_length)
  string(SUBSTRING "${hex}" ${offset} 32 chunk) # 16 bytes
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," chunk "${chunk}")
  string(APPEND lines "\t${chunk}\n")
  math(EXPR offset "${offset} + 32")
endwhile()
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/embed.cmake. Do not edit.\n"
  "const unsigned char ${SYMBOL}[] = {\n${lines}\t0x00\n};\n"
  "const unsigned long ${SYMBOL}_size = ${size};\n")
