# sim/timed/cost_table.cmake — cmake -DCSV=... -DOUT=... -P cost_table.cmake: the ASAP7 cost table
# (rtl/synth/asap7_units.csv, written by scripts/rtl_synth.sh) as a C header for timed_cost.c, at build
# time, so that no synthesized figure is ever typed into C by hand. One enumerator per row
# (LS_COST_<UNIT>): code that uses a unit the CSV lacks does not compile.
# -DDEPTH_OUT=...: also (or, without OUT, only) the units' pipeline depths as macros LS_ASAP7_DEPTH_<unit>
# and LS_ASAP7_DEPTHS_<unit> (a string), the defaults of the latency keys set from the synthesis
# (sim/config; ls_asap7_depth.h).
file(STRINGS "${CSV}" lines)
set(rows "")
set(enums "")
set(n 0)
set(meta "")
set(depths "")
foreach(line IN LISTS lines)
  if(line MATCHES "^# clock_ps=([0-9.]+) utilisation=([0-9.]+) register_overhead_ps=([0-9.]+) logic_budget_ps=([0-9.]+)")
    set(meta "#define LS_COST_CLOCK_PS ${CMAKE_MATCH_1}\n#define LS_COST_UTILISATION ${CMAKE_MATCH_2}\n#define LS_COST_REGISTER_OVERHEAD_PS ${CMAKE_MATCH_3}\n#define LS_COST_LOGIC_BUDGET_PS ${CMAKE_MATCH_4}\n")
    continue()
  endif()
  if(line MATCHES "^#" OR line MATCHES "^unit,")
    continue()
  endif()
  string(REPLACE "," ";" f "${line}")
  list(LENGTH f nf)
  if(nf LESS 14)
    message(FATAL_ERROR "${CSV}: a row with ${nf} fields, 14 expected: ${line}")
  endif()
  list(GET f 0 unit)
  list(GET f 1 kind)
  list(SUBLIST f 2 11 nums)
  list(SUBLIST f 13 -1 desc)
  string(JOIN "," desc ${desc})
  string(REPLACE "\"" "'" desc "${desc}")
  string(JOIN ", " nums ${nums})
  string(TOUPPER "${unit}" up)
  string(APPEND enums "    LS_COST_${up} = ${n},\n")
  string(APPEND rows "    {\"${unit}\", \"${kind}\", ${nums}, \"${desc}\"},\n")
  list(GET f 7 depth)
  if(NOT depth MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${CSV}: unit ${unit}: depth_cycles '${depth}' is not an integer")
  endif()
  string(APPEND depths "#define LS_ASAP7_DEPTH_${unit} ${depth}\n#define LS_ASAP7_DEPTHS_${unit} \"${depth}\"\n")
  math(EXPR n "${n} + 1")
endforeach()
if(meta STREQUAL "")
  message(FATAL_ERROR "${CSV}: no '# clock_ps=... utilisation=...' line")
endif()
if(DEPTH_OUT)
  file(WRITE "${DEPTH_OUT}.tmp" "/* Generated from rtl/synth/asap7_units.csv by sim/timed/cost_table.cmake: do not edit.
 * Pipeline depth at the clock (depth_cycles = ceil(delay / logic budget)) of each synthesized unit. */
#ifndef LS_ASAP7_DEPTH_H
#define LS_ASAP7_DEPTH_H
${depths}#endif
")
  file(COPY_FILE "${DEPTH_OUT}.tmp" "${DEPTH_OUT}" ONLY_IF_DIFFERENT)
  file(REMOVE "${DEPTH_OUT}.tmp")
endif()
if(NOT OUT)
  return()
endif()
file(WRITE "${OUT}.tmp" "/* Generated from rtl/synth/asap7_units.csv by sim/timed/cost_table.cmake at build time: do not edit. */
#ifndef LAMPSIM_COST_TABLE_GENERATED_H
#define LAMPSIM_COST_TABLE_GENERATED_H
${meta}enum {
${enums}    LS_COST_N = ${n}
};
static const ls_cost_unit ls_cost_table[LS_COST_N] = {
${rows}};
#endif
")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
