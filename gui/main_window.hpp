#pragma once
// gallocsim-gui's one window: the graph in the middle; the explanation and event log, the
// memory map, the timeline, the state tables and the statistics in docks around it; the
// playback controls in a toolbar. Every action has a keyboard shortcut. The window
// remembers its layout and recent files, opens files dropped on it, and shows errors
// through a message sink (a dialog by default; tests put in their own).

#include "gui/live_run.hpp"
#include "gui/offset_scale.hpp"
#include "simulator/model/examples.hpp"
#include "simulator/trace/timeline.hpp"

#include <QMainWindow>

#include <functional>
#include <memory>

class QAction;
class QCheckBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QSpinBox;

namespace gallocsim::gui {

class BreakpointSlider;
class CanvasView;
class EventLog;
class GraphView;
class MemoryMapView;
class SimulationController;
class StateTables;
class StatisticsPanel;
class PeakPanel;
class CapturePanel;
class TimelineView;

using MessageSink = std::function<void(const QString& title, const QString& message)>;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // With saved_settings false the window ignores the remembered layout and recent files
    // (tests and screenshots want the defaults); it still remembers what happens.
    explicit MainWindow(bool saved_settings = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    SimulationController& controller() { return *controller_; }
    GraphView& graph_view() { return *graph_view_; }
    MemoryMapView& memory_map() { return *memory_map_; }
    TimelineView& timeline() { return *timeline_; }
    StateTables& state_tables() { return *state_tables_; }
    EventLog& event_log() { return *event_log_; }
    StatisticsPanel& statistics() { return *statistics_; }
    PeakPanel& peak_panel() { return *peak_panel_; }
    CapturePanel& capture_panel() { return *capture_panel_; }
    BreakpointSlider& slider() { return *slider_; }
    QLabel& step_label() { return *step_label_; }
    QLineEdit& search_box() { return *search_; }

    // Where errors go (default: a warning dialog).
    void set_message_sink(MessageSink sink) { message_sink_ = std::move(sink); }

    // Opens a graph file, a saved session or a capture folder, and remembers it among the recent files.
    bool open(const QString& path);
    // Writes the view as PNG or SVG, by the path's suffix.
    bool export_view(CanvasView& view, const QString& path);
    // The timeline's x axis (node steps by default), as View ▸ Timeline in events sets it.
    void set_timeline_axis(TimeAxis axis);
    // Offsets in the timeline and the memory map (linear by default), as View ▸ Logarithmic offsets sets it.
    void set_offset_scale(OffsetScaleKind kind);
    // Runs a program under the capture and watches it (File ▸ Run a program…), stopping where
    // `stops` say; the Live menu and toolbar change the stops while it runs (main_window_live.cpp).
    bool run_program(const QStringList& command, const QString& folder, const LiveStops& stops);
    const LiveStops& live_stops() const { return live_stops_; }
    // Brings a dock to the front by its short name: events, memory, timeline, state, statistics.
    bool raise_dock(const QString& name);
    // The picture view that last had the focus (the graph at first).

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // Construction (main_window.cpp: docks; main_window_actions.cpp: actions, menus, toolbars).
    QDockWidget* add_dock(const QString& title, const QString& name, QWidget* body, Qt::DockWidgetArea area);
    void build_docks();
    void build_actions();
    void build_file_actions();
    void build_playback_actions();
    void build_zoom_actions();
    void build_view_actions();
    void build_simulation_actions();
    void build_menus();
    void build_file_menu();
    void build_simulation_menu();
    void build_breakpoints_menu();
    void build_view_menu();
    void build_toolbars();
    void build_playback_toolbar();
    void build_view_toolbar();
    // Wiring the controller, the controls and the views together (main_window.cpp).
    void connect_views();
    void connect_controls();
    void connect_messages();
    void connect_playback_controls();
    void connect_canvas_views();
    void graph_changed();
    void complete_tensor_names();
    void update_controls();
    void update_playback_actions();
    void update_title();
    void note_early_reads();
    void focus_current_view();
    void show_tensor_tooltip(std::optional<std::size_t> tensor, QPoint global_pos);
    void search();
    void toggle_selected_breakpoint();
    void restore_settings(bool layout);
    // Files (main_window_files.cpp).
    void remember_recent(const QString& path);
    void rebuild_recent_menu();
    void rebuild_examples_menu();
    void open_dialog();
    void open_capture_dialog();
    void open_policy_dialog();
    void save_session_dialog();
    void export_dialog(const QString& format);
    void buffer_settings_dialog();
    void example_dialog(const ExampleInfo& example);
    // A program run live (main_window_live.cpp).
    void build_live_actions();
    void build_live_menu();
    void build_live_toolbar();
    void run_program_dialog();
    void ask_tensor_stop();
    void ask_size_stop();
    void change_stops(const LiveStops& stops);
    void update_live_actions();

    SimulationController* controller_;
    GraphView* graph_view_;
    MemoryMapView* memory_map_;
    TimelineView* timeline_;
    StateTables* state_tables_;
    EventLog* event_log_;
    StatisticsPanel* statistics_;
    PeakPanel* peak_panel_;
    CapturePanel* capture_panel_;
    CanvasView* current_view_;

    BreakpointSlider* slider_ = nullptr;
    QLabel* step_label_ = nullptr;
    QSpinBox* speed_ = nullptr;
    QCheckBox* unlimited_ = nullptr;
    QLineEdit* search_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QMenu* examples_menu_ = nullptr;
    QMenu* kind_menu_ = nullptr;
    QMenu* view_menu_ = nullptr;

    QAction* open_action_ = nullptr;
    QAction* open_capture_action_ = nullptr;
    QAction* save_session_action_ = nullptr;
    QAction* export_png_action_ = nullptr;
    QAction* export_svg_action_ = nullptr;
    QAction* quit_action_ = nullptr;
    QAction* first_action_ = nullptr;
    QAction* back_action_ = nullptr;
    QAction* forward_action_ = nullptr;
    QAction* last_action_ = nullptr;
    QAction* run_action_ = nullptr;
    QAction* faster_action_ = nullptr;
    QAction* slower_action_ = nullptr;
    QAction* unlimited_action_ = nullptr;
    QAction* breakpoint_action_ = nullptr;
    QAction* clear_breakpoints_action_ = nullptr;
    QAction* settings_action_ = nullptr;
    QAction* policy_action_ = nullptr;
    QAction* fit_action_ = nullptr;
    QAction* zoom_in_action_ = nullptr;
    QAction* zoom_out_action_ = nullptr;
    QAction* zoom_offsets_in_action_ = nullptr;
    QAction* zoom_offsets_out_action_ = nullptr;
    QAction* find_action_ = nullptr;
    QAction* legend_action_ = nullptr;
    QAction* events_axis_action_ = nullptr;
    QAction* log_offsets_action_ = nullptr;
    QAction* peak_action_ = nullptr;
    QAction* run_program_action_ = nullptr;
    QAction* continue_action_ = nullptr;
    QAction* stop_each_call_action_ = nullptr;
    QAction* stop_tensor_action_ = nullptr;
    QAction* stop_size_action_ = nullptr;
    QAction* stop_failure_action_ = nullptr;
    LiveStops live_stops_;
    QString shown_source_;  // the graph the find box was last used with
    QString pending_note_;  // what the next status message adds about the graph just opened (note_early_reads)

    MessageSink message_sink_;
};

} // namespace gallocsim::gui
