"""A two-layer graph convolutional network (Kipf & Welling; pygcn / PyG-style message passing
written without torch_geometric or sparse tensors) for node classification on a small
random stochastic-block graph: self loops added with torch.arange, symmetric degree
normalisation with scatter_add and masked_fill_ of inf, messages gathered by edge source
index and summed into targets with index_add_; NLLLoss on a train mask, Adam with weight
decay, early stopping on the validation loss with the best state_dict kept by deepcopy and
restored for the test."""
import copy
import math

import numpy as np

from . import load_numpy_state, numpy_state


def define(torch):
    nn = torch.nn
    F = torch.nn.functional

    def gcn_norm(edge_index, num_nodes):
        """Add self loops; weight each edge (i, j) by 1 / sqrt(deg(i) deg(j))."""
        loops = torch.arange(num_nodes, dtype=edge_index.dtype).unsqueeze(0).repeat(2, 1)
        edge_index = torch.cat([edge_index, loops], dim=1)
        row, col = edge_index[0], edge_index[1]
        deg = torch.zeros(num_nodes).scatter_add(0, col, torch.ones(col.size(0)))
        deg_inv_sqrt = deg.pow(-0.5)
        deg_inv_sqrt.masked_fill_(deg_inv_sqrt == float("inf"), 0)
        return edge_index, deg_inv_sqrt[row] * deg_inv_sqrt[col]

    class GraphConvolution(nn.Module):
        """Simple GCN layer, similar to https://arxiv.org/abs/1609.02907"""

        def __init__(self, in_features, out_features, bias=True):
            super(GraphConvolution, self).__init__()
            self.in_features = in_features
            self.out_features = out_features
            self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
            if bias:
                self.bias = nn.Parameter(torch.FloatTensor(out_features))
            else:
                self.register_parameter('bias', None)
            self.reset_parameters()

        def reset_parameters(self):
            stdv = 1. / math.sqrt(self.weight.size(1))
            self.weight.data.uniform_(-stdv, stdv)
            if self.bias is not None:
                self.bias.data.uniform_(-stdv, stdv)

        def forward(self, x, edge_index, edge_weight):
            support = torch.mm(x, self.weight)
            src, dst = edge_index
            messages = support.index_select(0, src) * edge_weight.view(-1, 1)
            output = torch.zeros_like(support).index_add_(0, dst, messages)
            if self.bias is not None:
                return output + self.bias
            return output

        def __repr__(self):
            return (self.__class__.__name__ + ' (' + str(self.in_features) + ' -> '
                    + str(self.out_features) + ')')

    class GCN(nn.Module):
        def __init__(self, nfeat, nhid, nclass, dropout):
            super(GCN, self).__init__()
            self.gc1 = GraphConvolution(nfeat, nhid)
            self.gc2 = GraphConvolution(nhid, nclass)
            self.dropout = dropout

        def forward(self, x, edge_index, edge_weight):
            x = F.relu(self.gc1(x, edge_index, edge_weight))
            x = F.dropout(x, self.dropout, training=self.training)
            x = self.gc2(x, edge_index, edge_weight)
            return F.log_softmax(x, dim=1)

    return gcn_norm, GCN


def random_graph(nodes_per_class=30, classes=3, features=16, p_in=0.15, p_out=0.02,
                 seed=0):
    """A stochastic block model: (edge_index int64 (2, E) with both directions, features
    float32 (N, F) weakly tied to the class, labels int64 (N,))."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(classes), nodes_per_class)
    n = labels.size
    same = labels[:, None] == labels[None, :]
    upper = np.triu(rng.random((n, n)) < np.where(same, p_in, p_out), k=1)
    src, dst = np.nonzero(upper | upper.T)
    centers = rng.standard_normal((classes, features))
    x = 0.4 * centers[labels] + rng.standard_normal((n, features))
    return (np.stack([src, dst]).astype(np.int64), x.astype(np.float32),
            labels.astype(np.int64))


def main(torch, epochs=200, patience=10, state=None, device="cpu"):
    F = torch.nn.functional
    torch.manual_seed(42)
    device = torch.device(device)
    edges, features, labels = random_graph(seed=3)
    edge_index, x, y = (torch.from_numpy(edges), torch.from_numpy(features),
                        torch.from_numpy(labels))
    n = y.size(0)
    order = np.random.default_rng(1).permutation(n)
    masks = {}
    for name, part in (("train", order[:30]), ("val", order[30:50]), ("test", order[50:])):
        masks[name] = torch.zeros(n, dtype=torch.bool)
        masks[name][torch.from_numpy(part)] = True

    gcn_norm, GCN = define(torch)
    edge_index, edge_weight = gcn_norm(edge_index, n)
    model = GCN(nfeat=x.shape[1], nhid=16, nclass=int(y.max()) + 1, dropout=0.0).to(device)
    initial = numpy_state(model)
    if state is not None:
        load_numpy_state(torch, model, state)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)

    def accuracy(output, labels):
        preds = output.max(1)[1].type_as(labels)
        correct = preds.eq(labels).double()
        return correct.sum().item() / len(labels)

    losses, vals = [], []
    best_val, best_state, bad_epochs, stopped = float("inf"), None, 0, None
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        output = model(x, edge_index, edge_weight)
        loss_train = F.nll_loss(output[masks["train"]], y[masks["train"]])
        loss_train.backward()
        optimizer.step()
        losses.append(loss_train.item())

        model.eval()
        with torch.no_grad():
            output = model(x, edge_index, edge_weight)
            loss_val = F.nll_loss(output[masks["val"]], y[masks["val"]]).item()
        vals.append((loss_val, accuracy(output[masks["val"]], y[masks["val"]])))
        if loss_val < best_val:
            best_val, bad_epochs = loss_val, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                stopped = epoch
                break

    model.load_state_dict(best_state)
    model.eval()
    with torch.no_grad():
        output = model(x, edge_index, edge_weight)
        loss_test = F.nll_loss(output[masks["test"]], y[masks["test"]]).item()
        acc_test = accuracy(output[masks["test"]], y[masks["test"]])
    return {"losses": losses, "vals": vals, "stopped": stopped, "best_val": best_val,
            "test": (loss_test, acc_test), "edge_weight_sum": edge_weight.sum().item(),
            "state": initial}
