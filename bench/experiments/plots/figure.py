"""What the plots of bench/experiments share: the Agg backend (no display), the axes' grid and
legend, and saving a figure (a title over all axes, tight layout, 110 dpi)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402,F401  (the scripts take pyplot from here)


def style(ax, xlabel=None, ylabel=None, legend=True):
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend(fontsize=8)


def save(fig, out, title=None):
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
