// Debian 12's Vulkan headers (1.3.239) for llama.cpp's Vulkan backend as llama-cpp-python 0.3.36
// carries it. That backend names VK_EXT_layer_settings (headers 1.3.272 and later) without a version
// guard, only to ask the validation layer for best-practice warnings when the layer is present.
// .ci/install-upstream puts this folder first on the include path of that build alone: the real
// header comes in through #include_next, and where it predates the extension this adds the
// extension's two types, laid out as the Vulkan registry defines them, so that a driver walking the
// instance's pNext chain sees a well-formed structure it does not know and skips it. No upstream
// source is edited; with newer headers this file adds nothing.
#pragma once
#include_next <vulkan/vulkan.hpp>

#if VK_HEADER_VERSION < 272
namespace vk {

enum class LayerSettingTypeEXT : int32_t { eBool32 = 0, eInt32 = 1, eInt64 = 2, eUint32 = 3,
                                           eUint64 = 4, eFloat32 = 5, eFloat64 = 6, eString = 7 };

struct LayerSettingEXT {
    const char* pLayerName = nullptr;
    const char* pSettingName = nullptr;
    LayerSettingTypeEXT type = LayerSettingTypeEXT::eBool32;
    uint32_t valueCount = 0;
    const void* pValues = nullptr;
};

struct LayerSettingsCreateInfoEXT {
    // VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT in the registry.
    VkStructureType sType = static_cast<VkStructureType>(1000496000);
    const void* pNext = nullptr;
    uint32_t settingCount = 0;
    const LayerSettingEXT* pSettings = nullptr;

    explicit LayerSettingsCreateInfoEXT(const std::vector<LayerSettingEXT>& settings)
        : settingCount(static_cast<uint32_t>(settings.size())), pSettings(settings.data()) {}
};

}  // namespace vk
#endif
