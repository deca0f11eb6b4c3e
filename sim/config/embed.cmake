# Turns configs/default.yaml into a C array (run at build time, so the embedded default always
# matches the file). Usage: cmake -DIN=default.yaml -DOUT=default_yaml.c -P embed.cmake
file(READ "${IN}" _hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _body "${_hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" _body "${_body}")
file(WRITE "${OUT}.tmp" "/* Generated from configs/default.yaml by sim/config/embed.cmake; do not edit. */\nconst char ls_config_default_yaml[] = {\n${_body}0x00};\n")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
