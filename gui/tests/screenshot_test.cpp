// A screenshot of the real window on a real display (run under Xvfb): the seed example
// after its leafs, checked pixel by pixel where the memory map must show a and b.
//
//   memory map, chunk 0 at step 4:
//   0               32              64
//   +---------------+---------------+
//   |       a       |       b       |
//   +---------------+---------------+
//           ^ byte 16       ^ byte 48: sampled
#include "find_step.hpp"
#include "gui/graph_view.hpp"
#include "gui/main_window.hpp"
#include "gui/memory_map_view.hpp"
#include "gui/simulation_controller.hpp"
#include "gui/tensor_color.hpp"

#include <QStandardPaths>
#include <QTest>

namespace gallocsim::gui {

class ScreenshotTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void seed_after_the_leafs_shows_a_and_b_at_their_offsets() {
        MainWindow window(/*saved_settings=*/false);
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        SimulationController& controller = window.controller();
        QVERIFY(controller.load_example("seed"));
        controller.jump(test_support::find_step(controller.trace(), EventKind::leaf_allocated, "b"));  // both leafs placed
        QApplication::processEvents();

        const QImage shot = window.grab().toImage();
        const qreal ratio = shot.devicePixelRatio();
        MemoryMapView& map = window.memory_map();
        const TensorId a = *controller.find_tensor("a");
        const TensorId b = *controller.find_tensor("b");
        // A byte offset on chunk 0's bar, halfway down the bar, in window pixels.
        const double bar_middle = map.block_rect(a).center().y();
        auto pixel_at_byte = [&](std::size_t offset) {
            const QPointF in_map(map.map_to_widget(QPointF(static_cast<double>(offset), 0)).x(), bar_middle);
            return shot.pixel(map.mapTo(&window, in_map.toPoint()) * ratio);
        };
        QCOMPARE(pixel_at_byte(16), tensor_color("a").rgb());
        QCOMPARE(pixel_at_byte(48), tensor_color("b").rgb());

        // The graph shows both leafs live, in the same colours (away from their text).
        GraphView& graph = window.graph_view();
        for (TensorId leaf : {a, b}) {
            const QRectF box = graph.box_rect(leaf);
            const QPoint corner = graph.mapTo(&window, QPointF(box.right() - 6, box.bottom() - 5).toPoint());
            QCOMPARE(shot.pixel(corner * ratio), tensor_color(controller.trace().tensor(leaf).name).rgb());
        }

        // After b is freed (step 12) its bytes are a hatched free block, no longer b.
        controller.jump(test_support::find_step(controller.trace(), EventKind::tensor_freed, "b"));
        QApplication::processEvents();
        const QImage later = window.grab().toImage();
        const QPointF b_middle(map.map_to_widget(QPointF(48, 0)).x(), bar_middle);
        QVERIFY(later.pixel(map.mapTo(&window, b_middle.toPoint()) * ratio) != tensor_color("b").rgb());
        const QPointF a_middle(map.map_to_widget(QPointF(16, 0)).x(), bar_middle);
        QCOMPARE(later.pixel(map.mapTo(&window, a_middle.toPoint()) * ratio), tensor_color("mul").rgb());
    }
};

} // namespace gallocsim::gui

QTEST_MAIN(gallocsim::gui::ScreenshotTest)
#include "screenshot_test.moc"
