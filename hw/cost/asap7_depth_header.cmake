# Turns rtl/synth/asap7_units.csv (written by scripts/rtl_synth.sh) into the pipeline depths at the clock of
# every synthesized unit as C macros, so that the latency presets derived from them (lut.latency,
# scheduler.sort_latency, scheduler.subset_latency) are the synthesis's, never a hand copy.
# Usage: cmake -DIN=asap7_units.csv -DOUT=ls_asap7_depth.h -P asap7_depth_header.cmake
file(STRINGS "${IN}" _lines)
set(_defs "")
set(_header_seen FALSE)
foreach(_l IN LISTS _lines)
  if(_l MATCHES "^#" OR _l STREQUAL "")
    continue()
  endif()
  if(NOT _header_seen)
    if(NOT _l MATCHES "^unit,kind,cells,cell_area_um2,flops,area_um2,delay_ps,depth_cycles,")
      message(FATAL_ERROR "${IN}: unexpected header line '${_l}'")
    endif()
    set(_header_seen TRUE)
    continue()
  endif()
  string(REPLACE "," ";" _f "${_l}")
  list(GET _f 0 _unit)
  list(GET _f 7 _depth)
  if(NOT _depth MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${IN}: unit ${_unit}: depth_cycles '${_depth}' is not an integer")
  endif()
  string(APPEND _defs "#define LS_ASAP7_DEPTH_${_unit} ${_depth}\n#define LS_ASAP7_DEPTHS_${_unit} \"${_depth}\"\n")
endforeach()
file(WRITE "${OUT}.tmp" "/* Generated from rtl/synth/asap7_units.csv by hw/cost/asap7_depth_header.cmake; do not edit.
 * Pipeline depth at the clock (depth_cycles = ceil(delay / logic budget)) of each synthesized unit. */
#ifndef LS_ASAP7_DEPTH_H
#define LS_ASAP7_DEPTH_H
${_defs}#endif
")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
