# Strict warnings for the project's own targets only (never for dependencies).
function(gallocsim_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  if(GALLOCSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
