# TFBuild.cmake: helpers of TF's own build, not installed. Included by
# TFInstrument.cmake when it is read from the source tree.
include_guard(GLOBAL)

# tf_gcc_plugin_supported(VAR): whether gcc-plugin/ builds tf.so here (GCC with
# its plugin headers, not a sanitized build). Usable before gcc-plugin/ is
# added.
function(tf_gcc_plugin_supported var)
  set(ok FALSE)
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND "${TF_SANITIZE}" STREQUAL "")
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=plugin
                    OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(EXISTS "${dir}/include/gcc-plugin.h")
      set(ok TRUE)
      set(TF_GCC_PLUGIN_DIR "${dir}" PARENT_SCOPE)
    endif()
  endif()
  set(${var} ${ok} PARENT_SCOPE)
endfunction()

# tf_plugin_aliases(): the names tf_instrument() uses, the same in the build
# tree as in the installed package (TFConfig.cmake), with the compiler each
# plugin was built for.
function(tf_plugin_aliases)
  if(TARGET tf_gcc_plugin)
    add_library(TF::gcc_plugin ALIAS tf_gcc_plugin)
    set_property(GLOBAL PROPERTY TF_GCC_PLUGIN_FOR ${CMAKE_C_COMPILER_VERSION})
  endif()
  if(TARGET tf-clang)
    add_library(TF::clang_plugin ALIAS tf-clang)
    get_property(llvm_version GLOBAL PROPERTY TF_LLVM_VERSION)
    set_property(GLOBAL PROPERTY TF_CLANG_PLUGIN_FOR ${llvm_version})
  endif()
endfunction()
