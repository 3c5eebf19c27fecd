# Timing points (DESIGN.md section 6): included from runtime/CMakeLists.txt.
target_sources(tf PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/timing.c
  ${CMAKE_CURRENT_LIST_DIR}/timing_clock.c
  ${CMAKE_CURRENT_LIST_DIR}/timing_env.c
  ${CMAKE_CURRENT_LIST_DIR}/timing_groups.c
  ${CMAKE_CURRENT_LIST_DIR}/timing_report.c
  ${CMAKE_CURRENT_LIST_DIR}/timing_stack.c
  ${CMAKE_CURRENT_LIST_DIR}/timing_stats.c
  ${CMAKE_CURRENT_LIST_DIR}/timing_trace.c)
target_link_libraries(tf PRIVATE m)
