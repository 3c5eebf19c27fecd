# libtf.so, the file -ltf finds, is not the library but the GNU ld script
#   INPUT ( libtf-anchor.o libtf.so.0 )
# Generated code refers to libtf weakly (docs/code-shape.md section 6), which
# does not keep a library under --as-needed (GCC's default on Debian): the
# anchor's strong reference does (registry/anchor.c). Linkers find the
# script's inputs next to it; bfd, gold and lld read it.
add_library(tf_anchor OBJECT registry/anchor.c)
target_include_directories(tf_anchor PRIVATE ${TF_INCLUDE_DIR})
set_target_properties(tf_anchor PROPERTIES POSITION_INDEPENDENT_CODE ON)
add_dependencies(tf tf_anchor)
set(tf_ld_script ${CMAKE_CURRENT_BINARY_DIR}/libtf.so.ld)
file(WRITE ${tf_ld_script}
  "/* GNU ld script: libtf.so.${TF_SOVERSION}, kept by libtf-anchor.o under --as-needed */\n"
  "INPUT ( libtf-anchor.o libtf.so.${TF_SOVERSION} )\n")
# In the build tree, over the symbolic link CMake makes (never through it).
add_custom_command(TARGET tf POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E rm -f $<TARGET_LINKER_FILE:tf>
  COMMAND ${CMAKE_COMMAND} -E copy ${tf_ld_script} $<TARGET_LINKER_FILE:tf>
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_OBJECTS:tf_anchor> $<TARGET_FILE_DIR:tf>/libtf-anchor.o
  VERBATIM)
