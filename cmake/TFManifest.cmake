# TFManifest.cmake: run (cmake -P) by tf_instrument after each link of a
# target given OPTIONS manifest=FILE. Each of its sources wrote its own TU
# manifest (they compile at once under -j); this merges them into FILE,
#
#   {"abi": 4, "tool": "tf_instrument", "target": "app", "tus": [TU, TU, ...]}
#
# written whole (a temporary file renamed over it), and says each monitor
# line of a rules file that took no function of any of them: per TU that
# cannot be known (docs/design.md .silent.rules). tf-scan says the same for
# a whole build, with the nearest file or function meant.
#   -DTF_MANIFEST=FILE -DTF_TARGET=NAME -DTF_PARTS=part.json|part.json|...
cmake_minimum_required(VERSION 3.20)
string(REPLACE "|" ";" parts "${TF_PARTS}")
set(tus "")
set(abi 0)
set(rules_files "")
foreach(part IN LISTS parts)
  if(NOT EXISTS "${part}")
    continue() # not a C or C++ source: no TU manifest
  endif()
  file(READ "${part}" text)
  string(JSON abi GET "${text}" abi)
  string(JSON rules ERROR_VARIABLE no_rules GET "${text}" rules)
  if(NOT no_rules)
    string(JSON file GET "${rules}" file)
    if(NOT file IN_LIST rules_files)
      list(APPEND rules_files "${file}")
      set(lines_${file} "")
      set(chosen_${file} "")
    endif()
    foreach(what monitor_lines chosen)
      string(JSON n LENGTH "${rules}" ${what})
      math(EXPR last "${n} - 1")
      foreach(i RANGE ${last})
        if(n GREATER 0)
          string(JSON line GET "${rules}" ${what} ${i})
          if(what STREQUAL "chosen")
            list(APPEND chosen_${file} ${line})
          else()
            list(APPEND lines_${file} ${line})
          endif()
        endif()
      endforeach()
    endforeach()
  endif()
  string(STRIP "${text}" text)
  string(REPLACE "\n" "\n    " text "${text}")
  if(tus)
    string(APPEND tus ",")
  endif()
  string(APPEND tus "\n    ${text}")
endforeach()
file(WRITE "${TF_MANIFEST}.tf-merge" "{\n  \"abi\": ${abi},\n  \"tool\": \"tf_instrument\",\n  \"target\": \"${TF_TARGET}\",\n  \"tus\": [${tus}\n  ]\n}\n")
file(RENAME "${TF_MANIFEST}.tf-merge" "${TF_MANIFEST}")
foreach(file IN LISTS rules_files)
  list(REMOVE_DUPLICATES lines_${file})
  list(SORT lines_${file} COMPARE NATURAL)
  foreach(line IN LISTS lines_${file})
    if(NOT line IN_LIST chosen_${file})
      message(NOTICE "tf_instrument(${TF_TARGET}): ${file}:${line}: this monitor line took no "
                     "function of ${TF_TARGET}'s sources (tf-scan names the nearest files and "
                     "functions)")
    endif()
  endforeach()
endforeach()
