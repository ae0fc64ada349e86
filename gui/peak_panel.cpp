#include "gui/peak_panel.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/text.hpp"
#include "simulator/analysis/analysis.hpp"
#include "simulator/trace/explain.hpp"

#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace gallocsim::gui {

PeakPanel::PeakPanel(SimulationController& controller, QWidget* parent)
    : LazyPanel(controller, parent), controller_(controller), text_(new QTextBrowser) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(text_);
    text_->setOpenLinks(false);
    connect(text_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        bool ok = false;
        const std::size_t index = url.fragment().toULongLong(&ok);
        if (ok) {
            controller_.go_to_peak(index);
        }
    });
}

void PeakPanel::rebuild() {
    if (!controller_.has_graph()) {
        text_->clear();
        return;
    }
    const Trace& trace = controller_.trace();
    const GraphLifetimes& lifetimes = controller_.lifetimes();
    const std::vector<BufferAnswer>& answers = controller_.why_answers();
    QString html;
    if (!controller_.splits().empty()) {
        html += tr("<p>ggml's scheduler cut this graph into %1.</p>").arg(qstr(splits_summary(trace, controller_.splits())).toHtmlEscaped());
    }
    for (std::size_t i = 0; i < answers.size(); ++i) {
        const BufferAnswer& answer = answers[i];
        const BufferPeak& peak = *answer.peak;
        const TraceBuffer& buffer = trace.buffer(peak.buffer_id);
        if (!controller_.timeline().has_plan()) {
            // A capture's alloc_graph that kept an earlier call's plan: its size was set there.
            html += tr("<h3>Buffer %1 (%2)</h3><p>This call planned nothing: it placed its tensors by a plan made "
                       "earlier (the Capture dock's note says which call); pick that call to see why the buffer is "
                       "this big.</p>")
                        .arg(peak.buffer_id)
                        .arg(qstr(buffer.type_name).toHtmlEscaped());
            continue;
        }
        html += tr("<h3>Buffer %1 (%2): %3</h3>")
                    .arg(peak.buffer_id)
                    .arg(qstr(buffer.type_name).toHtmlEscaped(), qstr(byte_count(peak.size)));
        if (!peak.event) {
            html += tr("<p>Nothing was planned in it.</p>");
            continue;
        }
        const TraceEvent& event = trace.events[*peak.event];
        html += tr("<p>Its high-water mark was set at <b>event %1</b> (%2), node step %3 %4. "
                   "<a href=\"#%5\">Show it</a></p>")
                    .arg(*peak.event + 1)
                    .arg(qstr(kind_name(kind_of(event))))
                    .arg(node_step(trace, event))
                    .arg(event.node != kNoTensor ? tr("(%1 running)").arg(qstr(trace.tensor(event.node).name).toHtmlEscaped())
                                                 : tr("(before the first node)"))
                    .arg(i);
        // The bound before the details: what any plan needs and where, so nobody reads a hole
        // below as bytes to be won.
        if (answer.arena != nullptr) {
            QString bound = qstr(answer.bound_text());
            bound[0] = bound[0].toUpper();
            html += tr("<p>%1.</p>").arg(bound.toHtmlEscaped());
            html += tr("<p>The bound is reached at %1.</p>").arg(qstr(bound_position_text(trace, *answer.arena)).toHtmlEscaped());
        }
        html += tr("<p>Live then: %1, %2</p><table cellspacing=4>")
                    .arg(qstr(counted(peak.live.size(), "tensor")), qstr(byte_count(peak.live_bytes())));
        for (std::size_t t = 0; t < peak.live.size(); ++t) {
            const PeakTensor& live = peak.live[t];
            const TraceTensor& tensor = trace.tensor(live.tensor);
            // Where ggml's scheduler cut the graph, the split each tensor belongs to (#0 first, as ggml numbers them).
            const auto split = controller_.splits().split_of(tensor);
            html += QStringLiteral("<tr><td><span style=\"background:%1\">&nbsp;&nbsp;</span> %2</td><td>%3</td><td>%4</td><td align=right>%5</td><td>%6</td><td>%7</td></tr>")
                        .arg(controller_.color(live.tensor).name(), qstr(tensor.name).toHtmlEscaped(),
                             tensor.role == TensorRole::leaf ? tr("leaf") : qstr(op_name(tensor.op)),
                             split ? tr("split #%1").arg(*split) : QString(), human_bytes(live.bytes),
                             qstr(lifetime_end_text(trace, lifetimes, live.tensor)).toHtmlEscaped(),
                             qstr(answer.without_text(t)).toHtmlEscaped());
        }
        html += tr("</table><p>Live then by op: %1</p><p>Live then by layer: %2</p>")
                    .arg(qstr(live_groups_text(answer.live_by_op)).toHtmlEscaped(),
                         qstr(live_by_layer_text(answer)).toHtmlEscaped());
        html += tr("<p>Holes below the high-water mark then: %1, %2</p><ul>")
                    .arg(qstr(counted(peak.holes.size(), "hole")), qstr(byte_count(peak.hole_bytes())));
        for (std::size_t h = 0; h < peak.holes.size(); ++h) {
            const PeakHole& hole = peak.holes[h];
            html += "<li>" + qstr(hole_title(hole)).toHtmlEscaped() + "<ul>";
            for (const HoleBytes& run : hole.bytes) {
                html += "<li>" + qstr(hole_bytes_text(trace, run)).toHtmlEscaped() + "</li>";
            }
            html += "<li>" + qstr(hole_stays_text(trace, hole)).toHtmlEscaped() + "</li>";
            for (const std::string& what_if : hole_what_if_texts(trace, answer, h)) {
                html += "<li>" + qstr(what_if).toHtmlEscaped() + "</li>";
            }
            html += QStringLiteral("</ul></li>");
        }
        html += QStringLiteral("</ul>");
    }
    text_->setHtml(html);
}

} // namespace gallocsim::gui
