# Turns hw/cost/asap7_energy.csv (written by scripts/rtl_energy.py) into a C header at build time, so the
# energy model reads the measured per-action energies without a hand copy.
# Usage: cmake -DIN=asap7_energy.csv -DOUT=ls_asap7_energy.h -P asap7_energy_header.cmake
file(STRINGS "${IN}" _lines)
set(_rows "")
set(_defs "")
set(_n 0)
set(_header_seen FALSE)
foreach(_l IN LISTS _lines)
  if(_l MATCHES "^#" OR _l STREQUAL "")
    continue()
  endif()
  if(NOT _header_seen)
    if(NOT _l MATCHES "^unit,action,pj_per_action,logic_pj,switching_pj,internal_pj,register_pj,")
      message(FATAL_ERROR "${IN}: unexpected header line '${_l}'")
    endif()
    set(_header_seen TRUE)
    continue()
  endif()
  string(REPLACE "," ";" _f "${_l}")
  list(LENGTH _f _nf)
  if(_nf LESS 11)
    message(FATAL_ERROR "${IN}: row '${_l}' has ${_nf} fields, 11 expected")
  endif()
  list(GET _f 0 _unit)
  list(GET _f 1 _action)
  list(GET _f 2 _pj)
  list(GET _f 3 _logic)
  list(GET _f 6 _reg)
  foreach(_v ${_pj} ${_logic} ${_reg})
    if(NOT _v MATCHES "^[0-9]+\\.[0-9]+$")
      message(FATAL_ERROR "${IN}: unit ${_unit}: '${_v}' is not a plain decimal")
    endif()
  endforeach()
  string(APPEND _rows "    {\"${_unit}\", \"${_action}\", ${_pj}, ${_logic}, ${_reg}}, \\\n")
  string(APPEND _defs "#define LS_ASAP7_PJ_${_unit} ${_pj}\n#define LS_ASAP7_PJS_${_unit} \"${_pj}\"\n")
  math(EXPR _n "${_n} + 1")
endforeach()
file(WRITE "${OUT}.tmp" "/* Generated from hw/cost/asap7_energy.csv by hw/cost/asap7_energy_header.cmake; do not edit.
 * Dynamic energy per action (pJ, ASAP7 RVT TT, 0.7 V) of the RTL units, scripts/rtl_energy.py. */
#ifndef LS_ASAP7_ENERGY_H
#define LS_ASAP7_ENERGY_H
typedef struct { const char *unit, *action; double pj_per_action, logic_pj, register_pj; } ls_asap7_energy_row;
#define LS_ASAP7_ENERGY_N ${_n}
#define LS_ASAP7_ENERGY_ROWS { \\
${_rows}}
${_defs}#endif
")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
