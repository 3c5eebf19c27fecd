# Live control (DESIGN.md section 10): included from runtime/CMakeLists.txt.
target_sources(tf PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/actions.c
  ${CMAKE_CURRENT_LIST_DIR}/commands.c
  ${CMAKE_CURRENT_LIST_DIR}/cond.c
  ${CMAKE_CURRENT_LIST_DIR}/eval.c
  ${CMAKE_CURRENT_LIST_DIR}/frames.c
  ${CMAKE_CURRENT_LIST_DIR}/register.c
  ${CMAKE_CURRENT_LIST_DIR}/server.c
  ${CMAKE_CURRENT_LIST_DIR}/spec.c
  ${CMAKE_CURRENT_LIST_DIR}/trigger.c)
