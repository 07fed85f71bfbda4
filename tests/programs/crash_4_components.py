"""crash_4_components: the code cells of apache/mxnet docs/python_docs/python/tutorials/getting-started/crash-course/4-components.md
(commit b84609d3fc73, Apache License 2.0), in order, for tests/programs/cells.py.

Changed: import lines (``mxnet`` -> ``xprof.runtime``).
"""

# %% [1]
from xprof.runtime import np, npx,gluon
import xprof.runtime as mx
from xprof.runtime.gluon import nn
npx.set_np()

device = mx.cpu()


# %% [2]
net = nn.Sequential()

net.add(nn.Dense(5, in_units=3, activation="relu"),
        nn.Dense(25, activation="relu"),
        nn.Dense(2)
       )

net


# %% [3]
net.initialize()
params = net.collect_params()

for key, value in params.items():
    print(key, value)


# %% [4]
x = np.random.uniform(-1, 1, (10, 3))
net(x)  # Forward computation

params = net.collect_params()
for key, value in params.items():
    print(key, value)


# %% [5]
from xprof.runtime import init

# Constant init initializes the weights to be a constant value for all the params
net.initialize(init=init.Constant(3), device=device)
print(net[0].weight.data()[0])


# %% [6]
net.initialize(init=init.Normal(sigma=0.2), force_reinit=True, device=device)
print(net[0].weight.data()[0])


# %% [7]
net = gluon.nn.Dense(1)
net.initialize()

nn_input = np.array([[1.2, 0.56],
                     [3.0, 0.72],
                     [0.89, 0.9],
                     [0.89, 2.3],
                     [0.99, 0.52]])

nn_output = net(nn_input)
nn_output


# %% [8]
groundtruth_label = np.array([[0.0083],
                             [0.00382],
                             [0.02061],
                             [0.00495],
                             [0.00639]]).reshape(5, 1)


# %% [9]
def L2Loss(output_values, true_values):
    return np.mean((output_values - true_values) ** 2, axis=1) / 2

L2Loss(nn_output, groundtruth_label)


# %% [10]
from xprof.runtime.gluon import nn, loss as gloss
loss = gloss.L2Loss()

loss(nn_output, groundtruth_label)


# %% [11]
from xprof.runtime.gluon.loss import Loss

class custom_L1_loss(Loss):
    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super(custom_L1_loss, self).__init__(weight, batch_axis, **kwargs)

    def forward(self, pred, label):
        l = np.abs(label - pred)
        l = l.reshape(len(l),)
        return l
    
L1 = custom_L1_loss()
L1(nn_output, groundtruth_label)


# %% [12]
l1=gloss.L1Loss()
l1(nn_output, groundtruth_label)


# %% [13]
from xprof.runtime import optimizer


# %% [14]
trainer = gluon.Trainer(net.collect_params(),
                        optimizer="Adam",
                        optimizer_params={
                            "learning_rate":0.1,
                            "wd":0.001
                        })


# %% [15]
curr_weight = net.weight.data()
print(curr_weight)


# %% [16]
batch_size = len(nn_input)
trainer.step(batch_size, ignore_stale_grad=True)
print(net.weight.data())


# %% [17]
print(curr_weight - net.weight.grad() * 1 / 5)


# %% [18]
# Vector of likelihoods for all the classes
pred = np.array([[0.1, 0.9], [0.05, 0.95], [0.83, 0.17], [0.63, 0.37]])

labels = np.array([1, 1, 0, 1])


# %% [19]
from xprof.runtime.gluon.metric import Accuracy

acc = Accuracy()


# %% [20]
acc.update(labels=labels, preds=pred)


# %% [21]
def MyCustomMetric(EvalMetric):
    def __init__(self):
        super().init()

    def update(self, labels, preds):
        pass


# %% [22]
labels = np.array([0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1])
preds = np.array([0, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0])


# %% [23]
from xprof.runtime.gluon.metric import EvalMetric

class precision(EvalMetric):
    def __init__(self):
        super().__init__(name="Precision")
        
    def update(self,labels, preds):
        tp_labels = (labels == 1)
        true_positives = sum(preds[tp_labels] == 1)
        fp_labels = (labels == 0)
        false_positives = sum(preds[fp_labels] == 1)
        return true_positives / (true_positives + false_positives)
        
p = precision()


# %% [24]
p.update(np.array(labels), np.array(preds))
